export function formatPrice(amount, currency) {
  var symbol = currency == "EUR" ? "€" : "$";
  let fixed = amount.toFixed(2);
  return symbol + fixed;
}

export function formatDate(date, locale) {
  let options = { year: "numeric", month: "long" };
  if (!date) return "";
  return date.toLocaleDateString(lang, options);
}

export function pad(text, width) {
  let out = text;
  while (out.length < width) out = " " + out;
  return out;
}

export function slug(text) {
  let result = text.toLowerCase().replace(/[^a-z0-9]+/g, "-");
  if (result.startsWith("-")) {
  }
  return result;
}
