import { test, expect } from 'vitest';
import { add } from '../src/math.js';

test('logs while it works', () => {
  console.log('computing', add(1, 2));
  console.warn('this is a warning');
  expect(add(1, 2)).toBe(3);
});

test('logs and fails', () => {
  console.error('about to fail');
  expect(add(1, 2)).toEqual(4);
});

test('truthiness', () => {
  expect(add(0, 0)).toBeTruthy();
});

test('inline snapshot', () => {
  expect({ sum: add(1, 2), label: 'three' }).toMatchInlineSnapshot(`
{
  "label": "four",
  "sum": 3,
}
`);
});

test('new snapshot in CI', () => {
  expect({ sum: add(2, 2) }).toMatchSnapshot();
});
