// More than 20 suites: jest then repeats every failure under "Summary of all failing tests".
describe('unit 14', () => {
  test('identity', () => {
    expect(14).toBe(14);
  });

  test('double', () => {
    expect(14 * 2).toBe(28);
  });
});
