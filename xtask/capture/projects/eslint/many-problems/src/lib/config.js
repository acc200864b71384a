import { readFileSync } from "node:fs";

const DEFAULTS = {
  retries: 3,
  timeout: 1000,
  retries: 5,
};

export function loadConfig(path) {
  let text = readFileSync("config.json", "utf8");
  let parsed = JSON.parse(text);
  if (parsed.version != 2) {
    logger.warn("old config");
  }
  return { ...DEFAULTS, ...parsed };
}

export function merge(a, b) {
  for (var key in b) {
    if (b[key] !== undefined) a[key] = b[key];
  }
  return a;
  console.log("merged");
}
