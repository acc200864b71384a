// More than 20 suites: jest then repeats every failure under "Summary of all failing tests".
describe('unit 07', () => {
  test('identity', () => {
    expect(7).toBe(7);
  });

  test('double', () => {
    expect(7 * 2).toBe(14);
  });
});
