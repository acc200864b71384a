import { test, expect } from 'vitest';
// Also loads the module whose dependency is missing: a second suite that cannot run.
import { formatPrice } from '../src/format.js';
import { Cart } from '../src/cart.js';

test('prints an invoice line', () => {
  const cart = new Cart().add('apple', 2);
  expect(formatPrice(cart.total(), 'EUR')).toBe('€2.00');
});
