import assert from 'node:assert/strict';
import { cents } from '../src/money.js';

describe('rounding', function () {
  describe('cents', function () {
    it('rounds half up', function () {
      assert.equal(cents(0.125), 13);
    });

    it('keeps whole numbers', function () {
      assert.equal(cents(2), 200);
    });
  });
});
