// A fixture of verdict's declared-command tests.
export function sum(a, b) {
  return a + b;
}
