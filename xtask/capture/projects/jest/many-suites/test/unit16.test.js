// More than 20 suites: jest then repeats every failure under "Summary of all failing tests".
describe('unit 16', () => {
  test('identity', () => {
    expect(16).toBe(17);
  });

  test('double', () => {
    expect(16 * 2).toBe(32);
  });
});
