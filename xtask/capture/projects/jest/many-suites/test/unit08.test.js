// More than 20 suites: jest then repeats every failure under "Summary of all failing tests".
describe('unit 08', () => {
  test('identity', () => {
    expect(8).toBe(9);
  });

  test('double', () => {
    expect(8 * 2).toBe(16);
  });
});
