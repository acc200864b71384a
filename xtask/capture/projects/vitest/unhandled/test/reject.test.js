import { test, expect } from 'vitest';

test('forgets to await a rejection', async () => {
  Promise.reject(new Error('nobody awaited this'));
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(2).toBe(3);
});
