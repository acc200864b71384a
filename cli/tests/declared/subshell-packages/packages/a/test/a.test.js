const assert = require("node:assert");
const { double } = require("../index.js");

describe("double", () => {
  it("doubles", () => {
    assert.strictEqual(double(2), 4);
  });
});
