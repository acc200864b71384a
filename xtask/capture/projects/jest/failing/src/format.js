// The currency module was never written: every suite that loads this file fails to run.
const { symbolFor } = require('./currency');

function formatPrice(amount, currency) {
  return `${symbolFor(currency)}${amount.toFixed(2)}`;
}

module.exports = { formatPrice };
