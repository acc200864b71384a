// More than 20 suites: jest then repeats every failure under "Summary of all failing tests".
describe('unit 06', () => {
  test('identity', () => {
    expect(6).toBe(6);
  });

  test('double', () => {
    expect(6 * 2).toBe(12);
  });
});
