const assert = require('node:assert');
const { add, multiply } = require('../src/math');
const { words } = require('../src/strings');

describe('compare', function () {
  for (const [a, b, sum] of [
    [1, 1, 2],
    [2, 2, 5],
    [3, 3, 7],
  ]) {
    it(`add(${a}, ${b}) is ${sum}`, function () {
      assert.strictEqual(add(a, b), sum);
    });
  }

  it('not equal', function () {
    assert.notStrictEqual(multiply(2, 2), 5);
  });

  it('length', function () {
    assert.strictEqual(words('one two three').length, 4);
  });

  it('null', function () {
    assert.strictEqual(words(''), null);
  });

  it('deep', function () {
    assert.deepStrictEqual({ a: { b: [1, 2, { c: 3 }] } }, { a: { b: [1, 2, { c: 4 }] } });
  });

  it('fails outright', function () {
    assert.fail('not implemented yet');
  });

  it('throws a plain string', function () {
    throw 'a string, not an error';
  });
});
