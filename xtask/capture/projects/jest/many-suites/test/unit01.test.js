// More than 20 suites: jest then repeats every failure under "Summary of all failing tests".
describe('unit 01', () => {
  test('identity', () => {
    expect(1).toBe(1);
  });

  test('double', () => {
    expect(1 * 2).toBe(2);
  });
});
