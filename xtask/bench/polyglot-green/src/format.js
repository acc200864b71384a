// Formats an amount of cents as a price.
function formatPrice(cents, currency = "") {
  return `${currency}${(cents / 100).toFixed(2)}`;
}

function formatQuantity(n) {
  if (n === 1) return "1 item";
  return `${n} items`;
}

module.exports = { formatPrice, formatQuantity };
