const assert = require('node:assert');

describe('slow', function () {
  it('waits a little', async function () {
    this.slow(10);
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.ok(true);
  });

  it('logs a line', function () {
    console.log('hello from a passing test');
  });
});
