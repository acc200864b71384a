import { test, expect } from 'vitest';
import { formatPrice } from '../src/format.js';

test('formats euros', () => {
  expect(formatPrice(3, 'EUR')).toBe('€3.00');
});

test('formats dollars', () => {
  expect(formatPrice(3, 'USD')).toBe('$3.00');
});
