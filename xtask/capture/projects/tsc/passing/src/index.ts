import { mean } from "./math";

export function describe(values: number[]): string {
  const m = mean(values);
  return m === undefined ? "no values" : `mean ${m.toFixed(2)}`;
}
