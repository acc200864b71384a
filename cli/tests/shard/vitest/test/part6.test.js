import { describe, expect, test } from 'vitest';

const add = (a, b) => a + b;

describe('part 6', () => {
  test('adds', () => {
    expect(add(6, 1)).toBe(7);
  });
  test('multiplies', () => {
    expect(6 * 2).toBe(12);
  });
});
