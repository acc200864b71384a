// A small shopping cart with a few bugs for the tests to find.
function total(items) {
  return items.reduce((sum, item) => sum + item.price * item.qty, 0);
}

function discount(amount, percent) {
  // Bug: the percentage is subtracted as an amount.
  return amount - percent;
}

function parseQty(text) {
  const n = Number.parseInt(text, 10);
  if (Number.isNaN(n)) {
    throw new TypeError(`not a quantity: ${text}`);
  }
  return n;
}

async function fetchPrice(sku) {
  if (sku === "missing") {
    throw new Error(`no price for ${sku}`);
  }
  return 10;
}

module.exports = { total, discount, parseQty, fetchPrice };
