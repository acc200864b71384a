import { test, expect } from 'vitest';

test('never runs', () => {
  expect(1).toBe(1);
});
