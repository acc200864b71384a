const assert = require('node:assert');
const { Cart } = require('../src/cart');

describe('Cart', function () {
  let cart;

  beforeEach(function () {
    cart = new Cart().add('apple', 2, 3).add('pear', 5);
  });

  it('totals prices times quantities', function () {
    assert.strictEqual(cart.total(), 11);
  });

  it('summarizes its items', function () {
    assert.deepStrictEqual(cart.summary(), { count: 2, names: ['apple', 'pear', 'plum'] });
  });

  it('removes an item', function () {
    cart.remove('apple');
    assert.strictEqual(cart.items.length, 2);
  });

  it('refuses to remove a missing item', function () {
    assert.throws(() => cart.remove('kiwi'), { message: 'no such item: kiwi' });
  });

  it('throws from the code under test', function () {
    cart.remove('kiwi');
  });

  describe('when empty', function () {
    it('totals zero', function () {
      assert.strictEqual(new Cart().total(), 0);
    });

    it('has a summary', function () {
      assert.deepStrictEqual(new Cart().summary(), { count: 0, names: [], empty: true });
    });
  });
});
