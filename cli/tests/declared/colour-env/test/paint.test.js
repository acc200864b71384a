const assert = require("node:assert");
const { paint } = require("../paint.js");

describe("paint", () => {
  it("paints when nothing turns colour off", () => {
    assert.strictEqual(paint("x"), "<b>x</b>");
  });
});
