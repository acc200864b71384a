const { add, subtract, multiply, divide, average } = require('../src/math');

describe('math', () => {
  test('adds two numbers', () => {
    expect(add(2, 2)).toBe(4);
  });

  test('subtracts two numbers', () => {
    expect(subtract(5, 3)).toBe(2);
  });

  test('multiplies two numbers', () => {
    expect(multiply(3, 4)).toBe(12);
  });

  test('multiplies by zero', () => {
    expect(multiply(3, 0)).toBe(0);
  });

  test('divides by zero', () => {
    expect(() => divide(1, 0)).toThrow('division by zero');
  });

  describe('average', () => {
    test('of three values', () => {
      expect(average([1, 2, 3])).toBe(2);
    });

    test('of one value', () => {
      expect(average([4])).toBeCloseTo(4, 5);
    });

    test.skip('of no values', () => {
      expect(average([])).toBeNaN();
    });
  });
});
