import { query } from "../lib/db.js";

export async function orders(req, res) {
  const rows = await query("select * from orders where user = $1", [req.user.id]);
  const total = rows.reduce((sum, row) => sum + row.amount, 0);
  if (total > 1000) {
    return res.end(JSON.stringify({ rows, big: true }));
  } else {
    return res.end(JSON.stringify({ rows }));
  }
}

export function parseOrder(body) {
  const order = JSON.parse(body);
  if (order.items.length == 0) throw new Error("empty order");
  return order;
}

export function totals(list) {
  const sum = 0;
  for (const item of list) sum += item.price;
  return sum;
}
