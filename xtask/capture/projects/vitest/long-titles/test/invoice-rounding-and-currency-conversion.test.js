import { describe, test, expect } from "vitest";

// Titles longer than a terminal's 80 columns: the ` FAIL ` header of each failure wraps.
describe("invoice totals across currencies", () => {
  test("rounds each line to the currency's minor unit before summing the invoice total", () => {
    expect(Math.round(1.005 * 100) / 100).toBe(1.01);
  });

  test("converts every line at the rate of the invoice date rather than the payment date", () => {
    expect(0.1 + 0.2).toBe(0.3);
  });

  test("adds", () => {
    expect(1 + 1).toBe(2);
  });
});
