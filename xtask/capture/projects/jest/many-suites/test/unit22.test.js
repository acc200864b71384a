// More than 20 suites: jest then repeats every failure under "Summary of all failing tests".
describe('unit 22', () => {
  test('identity', () => {
    expect(22).toBe(22);
  });

  test('double', () => {
    expect(22 * 2).toBe(44);
  });
});
