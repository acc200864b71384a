const { add } = require('../src/math');

describe('broken file', () => {
  test('never runs', () => {
    expect(add(1, 1)).toBe(2);
  };
});
