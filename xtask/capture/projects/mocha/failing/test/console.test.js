const assert = require('node:assert');
const { add } = require('../src/math');

describe('console', function () {
  it('logs while it works', function () {
    console.log('computing', add(1, 2));
    console.warn('this is a warning');
    assert.strictEqual(add(1, 2), 3);
  });

  it('logs and fails', function () {
    console.error('about to fail');
    assert.deepEqual(add(1, 2), 4);
  });

  it('truthiness', function () {
    assert.ok(add(0, 0));
  });
});
