// More than 20 suites: jest then repeats every failure under "Summary of all failing tests".
describe('unit 18', () => {
  test('identity', () => {
    expect(18).toBe(18);
  });

  test('double', () => {
    expect(18 * 2).toBe(36);
  });
});
