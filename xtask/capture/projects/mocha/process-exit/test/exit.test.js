const assert = require("node:assert");

describe("shutdown", function () {
  it("closes the pool", function () {
    assert.strictEqual(1 + 1, 2);
  });

  it("exits the process from inside a test", function () {
    // A test (or the code it calls) that ends the process: mocha never prints its summary.
    process.exit(0);
  });

  it("never runs", function () {
    assert.strictEqual(1, 2);
  });
});
