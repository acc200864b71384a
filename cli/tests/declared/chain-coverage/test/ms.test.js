const { seconds } = require("../ms.js");

test("rounds to seconds", () => {
  expect(seconds(1500)).toBe(2);
});

test("edge: zero", () => {
  expect(seconds(0)).toBe(0);
});
