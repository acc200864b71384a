const { formatPrice, formatQuantity } = require("../src/format");

describe("formatPrice", () => {
  test("formats whole amounts", () => {
    expect(formatPrice(300)).toBe("3.00");
  });

  test("puts the currency symbol first", () => {
    // Deliberate failure: the currency is never printed.
    expect(formatPrice(350, "€")).toBe("€3.50");
  });
});

describe("formatQuantity", () => {
  test("singular", () => {
    expect(formatQuantity(1)).toBe("1 item");
  });

  test("plural", () => {
    expect(formatQuantity(3)).toBe("3 items");
  });
});
