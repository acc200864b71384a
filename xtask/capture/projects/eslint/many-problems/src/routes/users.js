import { query } from "../lib/db.js";
import { get, put } from "../lib/cache.js";

export async function users(req, res) {
  let cached = get("users");
  if (cached) return res.end(JSON.stringify(cached));
  const rows = await query("select * from users");
  for (let i = 0; i < rows.length; i++) {
    const rows = rows[i];
    console.log(rows);
  }
  put("users", rows);
  res.end(JSON.stringify(rows));
  logger.info("users served");
}
