// A tiny cart: the discount takes the percentage off, with the shared helper.
function subtotal(items) {
  return items.reduce((sum, [price, qty]) => sum + price * qty, 0);
}

function discount(total, percent) {
  const { off } = require('money');
  return total - off(total, percent);
}

function tax(total, rate) {
  return Math.round(total * rate * 100) / 100;
}

module.exports = { subtotal, discount, tax };
