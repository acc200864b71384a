// An error thrown outside any test: the file itself fails.
const test = require("node:test");
const assert = require("node:assert");

test("runs before the file breaks", () => {
  assert.ok(true);
});

throw new Error("config file missing: settings.json");
