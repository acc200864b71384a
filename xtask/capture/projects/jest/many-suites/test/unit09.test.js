// More than 20 suites: jest then repeats every failure under "Summary of all failing tests".
describe('unit 09', () => {
  test('identity', () => {
    expect(9).toBe(9);
  });

  test('double', () => {
    expect(9 * 2).toBe(18);
  });
});
