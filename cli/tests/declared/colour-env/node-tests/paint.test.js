const test = require("node:test");
const assert = require("node:assert");
const { colours } = require("../paint.js");

test("colours are on when nothing turns them off", () => {
  assert.strictEqual(colours(), true);
});
