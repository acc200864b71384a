// More than 20 suites: jest then repeats every failure under "Summary of all failing tests".
describe('unit 15', () => {
  test('identity', () => {
    expect(15).toBe(15);
  });

  test('double', () => {
    expect(15 * 2).toBe(30);
  });
});
