const test = require('node:test');

test('formats', () => {
  const text = `${1 + 1`;
});
