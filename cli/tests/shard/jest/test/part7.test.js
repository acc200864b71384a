const add = (a, b) => a + b;

describe('part 7', () => {
  test('adds', () => {
    expect(add(7, 1)).toBe(8);
  });
  test('multiplies', () => {
    expect(7 * 2).toBe(14);
  });
});
