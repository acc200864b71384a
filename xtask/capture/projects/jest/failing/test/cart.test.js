const { Cart } = require('../src/cart');

describe('Cart', () => {
  let cart;

  beforeEach(() => {
    cart = new Cart().add('apple', 2, 3).add('pear', 5);
  });

  test('totals prices times quantities', () => {
    expect(cart.total()).toBe(11);
  });

  test('summarizes its items', () => {
    expect(cart.summary()).toEqual({ count: 2, names: ['apple', 'pear', 'plum'] });
  });

  test('removes an item', () => {
    cart.remove('apple');
    expect(cart.items).toHaveLength(2);
  });

  test('refuses to remove a missing item', () => {
    expect(() => cart.remove('kiwi')).toThrow('no such item: kiwi');
  });

  test('contains a pear', () => {
    expect(cart.items).toContainEqual({ name: 'pear', price: 5, quantity: 2 });
  });

  describe('when empty', () => {
    test('totals zero', () => {
      expect(new Cart().total()).toBe(0);
    });

    test('has a summary', () => {
      expect(new Cart().summary()).toStrictEqual({ count: 0, names: [], empty: true });
    });
  });
});
