const { describe, it, before } = require("node:test");
const assert = require("node:assert");
const { discount, parseQty } = require("../src/cart");

describe("pricing", () => {
  describe("discounts", () => {
    it("keeps the amount at 0 percent", () => {
      assert.strictEqual(discount(50, 0), 50);
    });

    it("halves at 50 percent", () => {
      assert.strictEqual(discount(50, 50), 25);
    });
  });

  describe("quantities", () => {
    it("throws on a negative quantity", () => {
      assert.throws(() => parseQty("-1"));
    });

    it.skip("reads fractions", () => {});

    it.todo("reads words");
  });
});

describe("setup that fails", () => {
  before(() => {
    throw new Error("database not reachable");
  });

  it("never gets to run", () => {
    assert.ok(true);
  });
});
