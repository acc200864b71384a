test('logs a line', () => {
  console.log('hello from a passing test');
  expect(true).toBe(true);
});
