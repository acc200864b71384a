const assert = require('node:assert');

describe('text', () => {
  it('upper', () => assert.strictEqual('a'.toUpperCase(), 'A'));
  it('lower', () => assert.strictEqual('A'.toLowerCase(), 'b'));
});
it('totals', () => assert.strictEqual(1, 1));
