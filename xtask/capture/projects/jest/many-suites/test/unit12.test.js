// More than 20 suites: jest then repeats every failure under "Summary of all failing tests".
describe('unit 12', () => {
  test('identity', () => {
    expect(12).toBe(13);
  });

  test('double', () => {
    expect(12 * 2).toBe(24);
  });
});
