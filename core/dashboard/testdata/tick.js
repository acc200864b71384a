// Runs assets/app.js under Node with just enough of a DOM for its countdowns, at a fixed
// clock, and prints the words it gives each <time>: the render tests compare them with the
// server's. Usage: node tick.js <app.js> <now ms> <json {due: [ms], since: [ms], rel: [ms]}>
"use strict";
const fs = require("fs");
const [script, now, input] = process.argv.slice(2);
const times = JSON.parse(input);
const elements = {};
for (const kind of ["due", "since", "rel"]) {
  elements[kind] = times[kind].map((ms) => ({ dataset: { [kind]: String(ms) }, textContent: "" }));
}
globalThis.document = {
  body: { dataset: { now, watermark: "w" } },
  getElementById: () => null,
  querySelector: () => null,
  addEventListener: () => {},
  querySelectorAll: (selector) => elements[/data-(\w+)/.exec(selector)[1]] ?? [],
};
globalThis.window = {};
globalThis.setInterval = () => 0;
Date.now = () => Number(now);
// The script is a browser script, not a module: run it as the page would.
new Function(fs.readFileSync(script, "utf8"))();
const words = {};
for (const kind of Object.keys(elements)) words[kind] = elements[kind].map((e) => e.textContent);
process.stdout.write(JSON.stringify(words));
