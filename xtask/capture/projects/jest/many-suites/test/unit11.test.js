// More than 20 suites: jest then repeats every failure under "Summary of all failing tests".
describe('unit 11', () => {
  test('identity', () => {
    expect(11).toBe(11);
  });

  test('double', () => {
    expect(11 * 2).toBe(22);
  });
});
