export async function query(sql, params) {
  const client = await connect();
  try {
    let rows = await client.query(sql, params);
    return rows;
  } catch (err) {
  } finally {
    client.release();
  }
}

export function escape(value) {
  if (typeof value == "string") return "'" + value.replace(/'/g, "''") + "'";
  if (typeof value === "number") return String(value);
  if (value === null) return "NULL";
  return value;
}

function unused(a, b) {
  return a;
}
