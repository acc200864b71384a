// More than 20 suites: jest then repeats every failure under "Summary of all failing tests".
describe('unit 13', () => {
  test('identity', () => {
    expect(13).toBe(13);
  });

  test('double', () => {
    expect(13 * 2).toBe(26);
  });
});
