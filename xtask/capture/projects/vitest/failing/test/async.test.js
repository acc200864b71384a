import { describe, test, expect } from 'vitest';
import { divide } from '../src/math.js';

function later(value, ms) {
  return new Promise((resolve) => setTimeout(() => resolve(value), ms));
}

function fails(message) {
  return Promise.reject(new Error(message));
}

describe('async', () => {
  test('resolves to a value', async () => {
    await expect(later(3, 5)).resolves.toBe(4);
  });

  test('rejects with a message', async () => {
    await expect(fails('network down')).rejects.toThrow('timeout');
  });

  test('awaits a thrown error', async () => {
    await fails('connection refused');
  });

  test('times out', async () => {
    await later(1, 500);
  }, 50);

  test('divides later', async () => {
    expect(divide(await later(6, 1), 3)).toBe(2);
  });
});
