// A small shopping cart, all its functions right.
function total(items) {
  return items.reduce((sum, item) => sum + item.price * item.qty, 0)
}

function discount(amount, percent) {
  return amount - (amount * percent) / 100
}

function parseQty(text) {
  const n = Number(text)
  if (Number.isNaN(n)) {
    throw new TypeError(`not a quantity: ${text}`)
  }
  return n
}

function label(item) {
  return { name: item.name, price: item.price, currency: "EUR" }
}

module.exports = { total, discount, parseQty, label }
