// More than 20 suites: jest then repeats every failure under "Summary of all failing tests".
describe('unit 04', () => {
  test('identity', () => {
    expect(4).toBe(5);
  });

  test('double', () => {
    expect(4 * 2).toBe(8);
  });
});
