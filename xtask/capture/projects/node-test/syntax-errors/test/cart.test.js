const test = require('node:test');

function total(items) {
  return items.reduce((sum, item) => sum + item.price, 0)
}

const tax = ;

test('totals', () => total([]));
