const add = (a, b) => a + b;

describe('part 2', () => {
  test('adds', () => {
    expect(add(2, 1)).toBe(3);
  });
  test('multiplies', () => {
    expect(2 * 2).toBe(5);
  });
});
