const assert = require('node:assert');

function add(a, b) {
  return a + b;
}

describe('add', function () {
  it('adds small numbers', function () {
    assert.strictEqual(add(1, 2), 3);
  });

  it('adds negative numbers', function () {
    assert.strictEqual(add(-1, -2), -3);
  });

  it.skip('adds big numbers', function () {
    assert.strictEqual(add(2 ** 60, 1), 2 ** 60 + 1);
  });
});
