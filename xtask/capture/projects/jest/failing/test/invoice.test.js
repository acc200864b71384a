// Also loads the module whose dependency is missing: a second suite that cannot run.
const { formatPrice } = require('../src/format');
const { Cart } = require('../src/cart');

test('prints an invoice line', () => {
  const cart = new Cart().add('apple', 2);
  expect(formatPrice(cart.total(), 'EUR')).toBe('€2.00');
});
