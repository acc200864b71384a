const test = require("node:test");
const assert = require("node:assert");

test("adds", () => {
  assert.strictEqual(1 + 2, 3);
});

test("subtracts", () => {
  assert.strictEqual(3 - 1, 1);
});

test.describe("nested", () => {
  test.it("multiplies", () => {
    assert.strictEqual(2 * 2, 5);
  });
  test.it("divides", () => {
    assert.strictEqual(4 / 2, 2);
  });
});

test("skipped", { skip: true }, () => {});
test("todo", { todo: true }, () => { throw new Error("not yet"); });
