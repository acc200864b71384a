/**
 * Formats an amount of cents as a price.
 * @param {number} cents
 * @returns {string}
 */
function formatPrice(cents) {
  return (cents / 100).toFixed(2);
}

module.exports = { formatPrice };
