// More than 20 suites: jest then repeats every failure under "Summary of all failing tests".
describe('unit 21', () => {
  test('identity', () => {
    expect(21).toBe(21);
  });

  test('double', () => {
    expect(21 * 2).toBe(42);
  });
});
