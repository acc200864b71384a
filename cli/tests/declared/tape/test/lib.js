const test = require("tape");
const { slug, initials } = require("../lib.js");

test("slug", (t) => {
  t.equal(slug("Hello World"), "hello-world", "joins lowercase words");
  t.equal(slug("  Hi  "), "hi", "drops the spaces around");
  t.end();
});

test("initials", (t) => {
  t.equal(initials("Ada Lovelace"), "AL");
  t.end();
});
