const { subtotal, discount, tax } = require('../src/cart');

test('subtotal', () => {
  expect(subtotal([[2.5, 2], [1, 3]])).toBe(8);
});

test('discount', () => {
  expect(discount(200, 10)).toBe(180);
});

test('tax', () => {
  expect(tax(100, 0.2)).toBe(20);
});

test('empty', () => {
  expect(subtotal([])).toBe(0);
});
