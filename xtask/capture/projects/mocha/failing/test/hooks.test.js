const assert = require('node:assert');

describe('database', function () {
  beforeEach(function () {
    throw new Error('could not connect to the database');
  });

  it('reads a row', function () {
    assert.ok(true);
  });

  it('writes a row', function () {
    assert.ok(true);
  });
});

describe('server', function () {
  before(function () {
    throw new Error('port 8080 is already in use');
  });

  it('answers a request', function () {
    assert.ok(true);
  });
});

describe('cache', function () {
  afterEach(function () {
    if (this.currentTest.title === 'counts entries') {
      throw new Error('cache was not cleared');
    }
  });

  it('stores a value', function () {
    const cache = new Map([['a', 1]]);
    assert.strictEqual(cache.get('a'), 1);
  });

  it('expires a value', function () {
    const cache = new Map([['a', 1]]);
    assert.strictEqual(cache.get('a'), undefined);
  });

  it('counts entries', function () {
    assert.ok(new Map([['a', 1], ['b', 2]]).size >= 2);
  });
});
