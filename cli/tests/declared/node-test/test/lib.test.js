// The project's tests, run by `node --test` as its `test` script says.
const test = require("node:test");
const assert = require("node:assert");
const { slug } = require("../lib.js");

test("joins words with dashes", () => {
  assert.strictEqual(slug("Hello World"), "hello-world");
});

test("trims", () => {
  assert.strictEqual(slug("  a b "), "a-b");
});
