const test = require('tape')
const { total, parseQty } = require('../src/cart.js')

test('total', t => {
  t.equal(total([{ price: 3, qty: 2 }]), 6, 'price times quantity')
  t.end()
})

test('parseQty', t => {
  t.equal(parseQty('3'), 3, 'reads digits')
  // Throws: the code rejects words, the test does not expect it. tape stops the run here.
  t.equal(parseQty('three'), 3, 'reads words')
  t.end()
})

test('never reached', t => {
  t.pass('after the crash')
  t.end()
})
