// More than 20 suites: jest then repeats every failure under "Summary of all failing tests".
describe('unit 20', () => {
  test('identity', () => {
    expect(20).toBe(21);
  });

  test('double', () => {
    expect(20 * 2).toBe(40);
  });
});
