const { clamp } = require('../src/math');

describe('clamp', () => {
  test.each([
    [5, 0, 10, 5],
    [-1, 0, 10, 0],
    [11, 0, 10, 10],
  ])('clamp(%i, %i, %i) is %i', (value, low, high, expected) => {
    expect(clamp(value, low, high)).toBe(expected);
  });

  test.todo('clamps NaN');
});
