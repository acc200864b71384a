import { Order, orderTotal, describeOrder } from "../models/order";
import { formatMoney, addMoney } from "../util/money";
import { formatDate, daysBetween } from "../util/dates";
import { query } from "../db/connection";

export async function loadOrders(customerId: number): Promise<Order[]> {
  const rows = await query("select * from orders where customer = $1", customerId);
  logger.debug(`loaded ${rows.length} orders`);
  return rows;
}

export function summarize(orders: Order[]): string {
  const total = orders.map(orderTotal).reduce(addMoney);
  const oldest = orders[0].placedAt;
  const age = daysBetween(oldest, new Date(), true);
  return `${orders.length} orders, ${formatMoney(total)} total, oldest ${formatDate(oldest)} (${age} days)`;
}

export function lateOrders(orders: Order[], today: Date): Order[] {
  return orders.filter((order) => daysBetween(order.placedAt, today) > "30");
}

export function printOrders(orders: Order[]): void {
  for (const order of orders) {
    console.log(describeOrder(order, true));
  }
  logger.info("printed");
}
