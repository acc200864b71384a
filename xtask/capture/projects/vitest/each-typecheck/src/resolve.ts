// Joins URL parts, with a bug: a leading slash of the second part becomes an `x`.
export function resolveURL(base: string, path: string): string {
  return base.replace(/\/$/, "") + "/" + path.replace(/^\//, "x");
}

export function join(a: string, b: string): string {
  return a + b;
}
