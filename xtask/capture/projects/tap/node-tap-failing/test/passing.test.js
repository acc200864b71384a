const t = require('tap')
const { total } = require('../src/cart.js')

t.test('totals of several items', async t => {
  t.equal(total([{ price: 1, qty: 1 }, { price: 2, qty: 3 }]), 7)
  t.ok(total([]) === 0, 'empty is zero')
})
