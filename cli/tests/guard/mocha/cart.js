// A tiny cart: the discount adds the percentage instead of taking it off.
function subtotal(items) {
  return items.reduce((sum, [price, qty]) => sum + price * qty, 0);
}

function discount(total, percent) {
  return total + (total * percent) / 100;
}

function tax(total, rate) {
  return Math.round(total * rate * 100) / 100;
}

module.exports = { subtotal, discount, tax };
