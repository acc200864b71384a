import { describe, test, expect } from 'vitest';

function clamp(value, low, high) {
  return Math.min(Math.max(value, low), high);
}

describe('clamp', () => {
  test.each([
    [5, 0, 10, 5],
    [-1, 0, 10, 0],
    [11, 0, 10, 10],
  ])('clamp(%i, %i, %i) is %i', (value, low, high, expected) => {
    expect(clamp(value, low, high)).toBe(expected);
  });

  test.todo('clamps NaN');

  test('logs a line', () => {
    console.log('hello from a passing test');
  });
});
