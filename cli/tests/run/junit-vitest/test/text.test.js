import { describe, expect, test } from 'vitest';

describe('text', () => {
  test('upper', () => expect('a'.toUpperCase()).toBe('A'));
  test('lower', () => expect('A'.toLowerCase()).toBe('b'));
});
test('totals', () => expect(1).toBe(1));
