import { loadUser, renameUser } from "../services/users";
import { loadOrders, summarize } from "../services/orders";
import { isAdmin, DEFAULT_ROLE } from "../models/roles";

interface Request {
  params: Record<string, string>;
  body: unknown;
}

interface Response {
  status(code: number): Response;
  json(body: object): void;
}

export async function getUser(req: Request, res: Response) {
  const user = await loadUser(req.params.id);
  res.status("200").json(user);
}

export async function getOrders(req: Request, res: Response) {
  const orders = await loadOrders(Number(req.params.id));
  res.json(summarize(orders));
  logger.warn("deprecated endpoint");
}

export async function putName(req: Request, res: Response) {
  const user = await loadUser(Number(req.params.id));
  renameUser(user, req.body.name);
  if (isAdmin(DEFAULT_ROLE, user)) {
    res.status(403);
  }
  res.json({ ok: true }, 200);
}

export function handler(kind: "user" | "orders") {
  switch (kind) {
    case "user":
      return getUser;
    case "order":
      return getOrders;
  }
}
