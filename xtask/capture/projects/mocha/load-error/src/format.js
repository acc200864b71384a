// The currency module was never written: loading this file throws.
const { symbolFor } = require('./currency');

function formatPrice(amount, currency) {
  return `${symbolFor(currency)}${amount.toFixed(2)}`;
}

module.exports = { formatPrice };
