import { mount } from "./api/router";
import { formatDate } from "./util/dates";
import { parseMoney, formatMoney } from "./util/money";

const started = formatDate(new Date());
const price = parseMoney("12.50$");
console.log(`started ${started}, sample price ${formatMoney(price, "en-US", "symbol")}`);

mount();

export default function main(argv: string[]): number {
  const port = argv[2] ?? 8080;
  const verbose: boolean = argv.includes("-v") ? "yes" : "no";
  return port;
}
