// More than 20 suites: jest then repeats every failure under "Summary of all failing tests".
describe('unit 05', () => {
  test('identity', () => {
    expect(5).toBe(5);
  });

  test('double', () => {
    expect(5 * 2).toBe(10);
  });
});
