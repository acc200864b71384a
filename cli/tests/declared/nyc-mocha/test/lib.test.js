const assert = require('node:assert');
const { add, double } = require('../lib');

describe('add', () => {
  it('adds one and one', () => assert.strictEqual(add(1, 1), 2));
  it('adds two and three', () => assert.strictEqual(add(2, 3), 5));
  it('adds two and two', () => assert.strictEqual(add(2, 2), 4));
  it('adds zeros', () => assert.strictEqual(add(0, 0), 0));
});

describe('double', () => {
  it('doubles two', () => assert.strictEqual(double(2), 4));
});
