// A tiny cart: the discount adds the percentage instead of taking it off.
export function subtotal(items) {
  return items.reduce((sum, [price, qty]) => sum + price * qty, 0);
}

export function discount(total, percent) {
  return total + (total * percent) / 100;
}

export function tax(total, rate) {
  return Math.round(total * rate * 100) / 100;
}

