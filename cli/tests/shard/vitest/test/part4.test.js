import { describe, expect, test } from 'vitest';

const add = (a, b) => a + b;

describe('part 4', () => {
  test('adds', () => {
    expect(add(4, 1)).toBe(5);
  });
  test('multiplies', () => {
    expect(4 * 2).toBe(8);
  });
});
