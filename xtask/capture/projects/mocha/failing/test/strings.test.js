const assert = require('node:assert');
const { capitalize, slugify, truncate, words } = require('../src/strings');

describe('strings', function () {
  it('capitalizes a word', function () {
    assert.strictEqual(capitalize('hello'), 'Hello');
  });

  it('slugifies a title', function () {
    assert.strictEqual(slugify('Hello Big World'), 'hello-big-world');
  });

  it('truncates long text', function () {
    assert.equal(truncate('abcdefghij', 5), 'abcd…');
  });

  it('keeps short text', function () {
    assert.strictEqual(truncate('abc', 5), 'abc');
  });

  it('splits words', function () {
    assert.deepStrictEqual(words('a  b c'), ['a', 'b', 'c']);
  });

  it('matches a pattern', function () {
    assert.match(slugify('Release Notes'), /^release-notes$/);
  });

  it('handles unicode');
});
