import { describe, expect, test } from 'vitest';

const add = (a, b) => a + b;

describe('part 5', () => {
  test('adds', () => {
    expect(add(5, 1)).toBe(7);
  });
  test('multiplies', () => {
    expect(5 * 2).toBe(10);
  });
});
