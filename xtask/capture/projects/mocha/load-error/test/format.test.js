const assert = require('node:assert');
const { formatPrice } = require('../src/format');

describe('formatPrice', function () {
  it('formats euros', function () {
    assert.strictEqual(formatPrice(3, 'EUR'), '€3.00');
  });
});
