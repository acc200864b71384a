// More than 20 suites: jest then repeats every failure under "Summary of all failing tests".
describe('unit 17', () => {
  test('identity', () => {
    expect(17).toBe(17);
  });

  test('double', () => {
    expect(17 * 2).toBe(34);
  });
});
