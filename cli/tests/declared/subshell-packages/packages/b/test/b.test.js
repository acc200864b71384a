const test = require("node:test");
const assert = require("node:assert");
const { half } = require("../index.js");

test("halves", () => {
  assert.strictEqual(half(4), 2);
});
