import { describe, expect, test } from "vitest";
import { resolveURL } from "../src/resolve";

// Titles made from `test.each`'s `$input` hold ` [ ` and `->`, as unjs/ufo's do.
describe("resolveURL", () => {
  test.each([
    { input: ["/", "a"], out: "/a" },
    { input: ["a", "b"], out: "a/b" },
    { input: ["a", "/c"], out: "a/c" },
    { input: ["http://foo.com", "/a"], out: "http://foo.com/a" },
  ])("$input -> $out", (t) => {
    expect(resolveURL(t.input[0], t.input[1])).toBe(t.out);
  });

  describe("with a trailing slash", () => {
    test("keeps one slash", () => {
      expect(resolveURL("http://a/", "/b")).toBe("http://a/b");
    });
    test("joins words", () => {
      expect(resolveURL("http://a/", "b")).toBe("http://a/b");
    });
  });
});
