export function add(a: number, b: number): number {
  return a + b;
}

export function mean(values: readonly number[]): number | undefined {
  if (values.length === 0) {
    return undefined;
  }
  return values.reduce(add, 0) / values.length;
}
