import { query } from "../lib/db.js";

export async function admin(req, res) {
  const rows = await query("select * from users where admin");
  return res.end(JSON.stringify({ rows, count: rows.length );
}
