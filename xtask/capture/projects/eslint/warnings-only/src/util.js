export function sum(values) {
  let total = 0;
  for (const v of values) total += v;
  console.info(`sum of ${values.length} values`);
  return total;
}
