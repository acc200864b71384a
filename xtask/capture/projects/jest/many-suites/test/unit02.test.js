// More than 20 suites: jest then repeats every failure under "Summary of all failing tests".
describe('unit 02', () => {
  test('identity', () => {
    expect(2).toBe(2);
  });

  test('double', () => {
    expect(2 * 2).toBe(4);
  });
});
