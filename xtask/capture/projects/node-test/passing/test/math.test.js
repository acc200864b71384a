const { describe, it, test } = require("node:test");
const assert = require("node:assert");

test("adds", () => {
  assert.strictEqual(1 + 2, 3);
});

describe("strings", () => {
  it("joins", () => {
    assert.strictEqual(["a", "b"].join("-"), "a-b");
  });

  it.skip("pads", () => {});

  it.todo("trims");
});

test("with subtests", async (t) => {
  await t.test("one", () => assert.ok(true));
  await t.test("two", () => assert.ok(true));
});
