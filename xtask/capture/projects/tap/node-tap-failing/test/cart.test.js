const t = require('tap')
const { total, discount, parseQty, label } = require('../src/cart.js')

t.test('total', async t => {
  t.equal(total([]), 0, 'an empty cart is 0')
  t.equal(total([{ price: 3, qty: 2 }]), 6, 'price times quantity')
})

t.test('discount', async t => {
  t.equal(discount(200, 10), 180, 'takes a percentage')
  t.equal(discount(100, 0), 100, 'zero changes nothing')
})

t.test('labels', async t => {
  t.test('name', async t => {
    t.equal(label({ name: 'pen', price: 2 }).name, 'pen')
  })
  t.test('currency', async t => {
    t.same(label({ name: 'pen', price: 2 }), { name: 'pen', price: 2, currency: 'EUR' }, 'carries the currency')
  })
})

t.test('parseQty', async t => {
  t.equal(parseQty('3'), 3, 'reads digits')
  t.test('words', async t => {
    // Throws: the code rejects words, the test does not expect it.
    t.equal(parseQty('three'), 3, 'reads words')
  })
})

t.test('coupons', { skip: 'coupons are not built yet' }, async t => {
  t.fail('never runs')
})

t.test('gift cards', { todo: 'gift cards come later' }, async t => {
  t.fail('not written')
})
