const { capitalize, slugify, truncate, words } = require('../src/strings');

describe('strings', () => {
  test('capitalizes a word', () => {
    expect(capitalize('hello')).toBe('Hello');
  });

  test('slugifies a title', () => {
    expect(slugify('Hello Big World')).toBe('hello-big-world');
  });

  test('truncates long text', () => {
    expect(truncate('abcdefghij', 5)).toBe('abcd…');
  });

  test('keeps short text', () => {
    expect(truncate('abc', 5)).toBe('abc');
  });

  test('splits words', () => {
    expect(words('a  b c')).toEqual(['a', 'b', 'c']);
  });

  test('matches a pattern', () => {
    expect(slugify('Release Notes')).toMatch(/^release-notes$/);
  });

  test.todo('handles unicode');
});
