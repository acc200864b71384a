export function cents(amount) {
  return Math.round(amount * 10);
}

export function split(total, parts) {
  if (parts <= 0) {
    throw new RangeError(`cannot split into ${parts} parts`);
  }
  return Array.from({ length: parts }, () => total / parts);
}
