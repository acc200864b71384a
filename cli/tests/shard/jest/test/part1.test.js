const add = (a, b) => a + b;

describe('part 1', () => {
  test('adds', () => {
    expect(add(1, 1)).toBe(2);
  });
  test('multiplies', () => {
    expect(1 * 2).toBe(2);
  });
});
