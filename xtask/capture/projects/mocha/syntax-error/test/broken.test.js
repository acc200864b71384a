const assert = require('node:assert');

describe('broken file', function () {
  it('never runs', function () {
    assert.strictEqual(1 + 1, 2);
  };
});
