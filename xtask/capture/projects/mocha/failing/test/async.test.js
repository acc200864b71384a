const assert = require('node:assert');
const { divide } = require('../src/math');

function later(value, ms) {
  return new Promise((resolve) => setTimeout(() => resolve(value), ms));
}

function fails(message) {
  return Promise.reject(new Error(message));
}

describe('async', function () {
  it('resolves to a value', async function () {
    assert.strictEqual(await later(3, 5), 4);
  });

  it('rejects with a message', async function () {
    await assert.rejects(fails('network down'), /timeout/);
  });

  it('awaits a thrown error', async function () {
    await fails('connection refused');
  });

  it('times out', async function () {
    this.timeout(50);
    await later(1, 500);
  });

  it('calls back with an error', function (done) {
    setTimeout(() => done(new Error('callback failed')), 1);
  });

  it('divides later', async function () {
    assert.strictEqual(divide(await later(6, 1), 3), 2);
  });
});
