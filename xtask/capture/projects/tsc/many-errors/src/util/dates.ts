export function formatDateTime(date: Date): string {
  return date.toISOString();
}

export function daysBetween(a: Date, b: Date): number {
  return Math.round((b - a) / 86_400_000);
}

export function startOfDay(date: Date): Date {
  const copy = new Date(date);
  copy.setHours(0, 0, 0, 0);
  return copy.getTime();
}
