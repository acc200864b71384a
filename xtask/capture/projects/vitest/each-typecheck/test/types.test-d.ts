import { describe, expectTypeOf, test } from "vitest";
import { join } from "../src/resolve";

describe("join", () => {
  describe("types", () => {
    test("takes strings", () => {
      expectTypeOf(join).parameter(0).toEqualTypeOf<number>();
    });
  });
});
