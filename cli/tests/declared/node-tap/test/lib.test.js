const t = require("tap");
const { slug, initials } = require("../lib.js");

t.test("slug", async (t) => {
  t.test("lowercases", async (t) => {
    t.equal(slug("Hello World"), "hello-world", "joins lowercase words");
  });
  t.test("trims", async (t) => {
    t.equal(slug("  Hi  "), "hi", "drops the spaces around");
  });
});

t.test("initials", async (t) => {
  t.equal(initials("Ada Lovelace"), "AL");
});
