import assert from 'node:assert/strict';
import { cents, split } from '../src/money.js';

describe('money', function () {
  it('converts to cents', function () {
    assert.equal(cents(1.5), 150);
  });

  it('splits evenly', function () {
    assert.deepEqual(split(10, 4), [2.5, 2.5, 2.5, 2.5]);
  });

  it('splits into three', function () {
    assert.deepEqual(split(10, 3), [3.33, 3.33, 3.34]);
  });

  it('refuses zero parts', function () {
    split(10, 0);
  });
});
