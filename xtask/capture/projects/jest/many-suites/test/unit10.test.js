// More than 20 suites: jest then repeats every failure under "Summary of all failing tests".
describe('unit 10', () => {
  test('identity', () => {
    expect(10).toBe(10);
  });

  test('double', () => {
    expect(10 * 2).toBe(20);
  });
});
