// Issues workflow commands with GitHub's own @actions/core, the reference implementation of
// their escaping, for core/engine/tests/render.rs to compare verdict's `github` format with.
//
// argv[2]: the directory holding node_modules/@actions/core; argv[3]: a JSON file holding a list
// of {level: "error" | "warning" | "notice", message, properties: {title, file, startLine,
// startColumn}}. Prints one command per item.
const path = require("path");
const fs = require("fs");
const core = require(path.join(process.argv[2], "node_modules/@actions/core"));
const items = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
for (const { level, message, properties } of items) {
  core[level](message, properties);
}
