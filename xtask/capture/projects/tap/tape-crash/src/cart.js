// A small shopping cart, with two bugs the tests find.
function total(items) {
  return items.reduce((sum, item) => sum + item.price * item.qty, 0)
}

function discount(amount, percent) {
  // Bug: subtracts the percentage as an amount.
  return amount - percent
}

function parseQty(text) {
  const n = Number(text)
  if (Number.isNaN(n)) {
    throw new TypeError(`not a quantity: ${text}`)
  }
  return n
}

function label(item) {
  // Bug: the currency is missing.
  return { name: item.name, price: item.price }
}

module.exports = { total, discount, parseQty, label }
