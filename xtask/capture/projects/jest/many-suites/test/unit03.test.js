// More than 20 suites: jest then repeats every failure under "Summary of all failing tests".
describe('unit 03', () => {
  test('identity', () => {
    expect(3).toBe(3);
  });

  test('double', () => {
    expect(3 * 2).toBe(6);
  });
});
