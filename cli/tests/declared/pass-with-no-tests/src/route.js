// A fixture of verdict's declared-command tests.
export function route(path) {
  return path.split("/").filter(Boolean);
}
