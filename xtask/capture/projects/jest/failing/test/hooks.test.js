describe('database', () => {
  beforeEach(() => {
    throw new Error('could not connect to the database');
  });

  test('reads a row', () => {
    expect(1).toBe(1);
  });

  test('writes a row', () => {
    expect(2).toBe(2);
  });
});

describe('cache', () => {
  test('stores a value', () => {
    const cache = new Map([['a', 1]]);
    expect(cache.get('a')).toBe(1);
  });

  test('expires a value', () => {
    const cache = new Map([['a', 1]]);
    expect(cache.get('a')).toBeUndefined();
  });

  test('counts entries', () => {
    expect(new Map([['a', 1], ['b', 2]]).size).toBeGreaterThan(2);
  });
});
