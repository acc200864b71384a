import { expect, test } from "vitest";
import { route } from "./route.js";

test("splits", () => {
  expect(route("/a/b")).toEqual(["a", "b"]);
});
