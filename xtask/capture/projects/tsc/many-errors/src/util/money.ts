export interface Money {
  cents: number;
  currency: "EUR" | "USD";
}

export function formatMoney(money: Money, locale: string): string {
  return new Intl.NumberFormat(locale, { style: "currency", currency: money.currency }).format(money.cents / 100);
}

export function addMoney(a: Money, b: Money): Money {
  if (a.currency !== b.currency) {
    throw new Error(`currency mismatch: ${a.currency} vs ${b.currency}`);
  }
  return { cents: a.cents + b.cents, currency: a.currency, rounded: true };
}

export function parseMoney(text: string): Money {
  const cents = parseInt(text.replace(".", ""));
  return { cents, currency: text.endsWith("$") ? "USD" : "GBP" };
}
