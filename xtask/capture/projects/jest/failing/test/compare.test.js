const { add, multiply } = require('../src/math');
const { words } = require('../src/strings');

describe('compare', () => {
  test.each([
    [1, 1, 2],
    [2, 2, 5],
    [3, 3, 7],
  ])('add(%i, %i) is %i', (a, b, sum) => {
    expect(add(a, b)).toBe(sum);
  });

  test('not equal', () => {
    expect(multiply(2, 2)).not.toBe(5);
  });

  test('length', () => {
    expect(words('one two three')).toHaveLength(4);
  });

  test('called', () => {
    const spy = jest.fn();
    spy('a');
    expect(spy).toHaveBeenCalledWith('b');
  });

  test('null', () => {
    expect(words('')).toBeNull();
  });

  test('deep', () => {
    expect({ a: { b: [1, 2, { c: 3 }] } }).toEqual({ a: { b: [1, 2, { c: 4 }] } });
  });
});
