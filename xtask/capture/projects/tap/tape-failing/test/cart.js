const test = require('tape')
const { total, discount, parseQty, label } = require('../src/cart.js')

test('total', t => {
  t.equal(total([]), 0, 'an empty cart is 0')
  t.equal(total([{ price: 3, qty: 2 }]), 6, 'price times quantity')
  t.end()
})

test('discount', t => {
  t.equal(discount(200, 10), 180, 'takes a percentage')
  t.equal(discount(100, 0), 100, 'zero changes nothing')
  t.end()
})

test('labels', t => {
  t.test('currency', st => {
    st.deepEqual(label({ name: 'pen', price: 2 }), { name: 'pen', price: 2, currency: 'EUR' }, 'carries the currency')
    st.end()
  })
  t.end()
})

test('parseQty', t => {
  t.plan(2)
  t.equal(parseQty('3'), 3, 'reads digits')
  // Planned two assertions, makes one.
  t.end()
})

test('coupons', { skip: true }, t => {
  t.fail('never runs')
  t.end()
})

test('gift cards', { todo: true }, t => {
  t.fail('not written')
  t.end()
})
