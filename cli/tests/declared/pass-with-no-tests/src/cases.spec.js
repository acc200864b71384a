// Data shared by the tests: a file vitest's include pattern matches, with no test in it.
export const CASES = [["/a", ["a"]]];
