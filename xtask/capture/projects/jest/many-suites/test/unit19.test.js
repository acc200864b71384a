// More than 20 suites: jest then repeats every failure under "Summary of all failing tests".
describe('unit 19', () => {
  test('identity', () => {
    expect(19).toBe(19);
  });

  test('double', () => {
    expect(19 * 2).toBe(38);
  });
});
