import { User } from "./user";
import { Money, formatMoney } from "../util/money";

export interface OrderLine {
  sku: string;
  quantity: number;
  price: Money;
}

export interface Order {
  id: string;
  customer: User;
  lines: OrderLine[];
  placedAt: Date;
}

export function orderTotal(order: Order): Money {
  return order.lines.reduce((sum, line) => sum + line.price * line.quantity, 0);
}

export function describeOrder(order: Order): string {
  const total: string = orderTotal(order);
  return `${order.id}: ${formatMoney(total)} for ${order.customer.fullName}`;
}

export function firstLine(order: Order): OrderLine {
  return order.lines.find((line) => line.quantity > 0);
}
