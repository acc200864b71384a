const assert = require('node:assert');
const { subtotal, discount, tax } = require('../cart');

describe('cart', () => {
  it('subtotal', () => {
    assert.strictEqual(subtotal([[2.5, 2], [1, 3]]), 8);
  });

  it('discount', () => {
    assert.strictEqual(discount(200, 10), 180);
  });

  it('tax', () => {
    assert.strictEqual(tax(100, 0.2), 20);
  });

  it('empty', () => {
    assert.strictEqual(subtotal([]), 0);
  });
});
