import { describe, expect, test } from 'vitest';

const add = (a, b) => a + b;

describe('part 3', () => {
  test('adds', () => {
    expect(add(3, 1)).toBe(4);
  });
  test('multiplies', () => {
    expect(3 * 2).toBe(6);
  });
});
