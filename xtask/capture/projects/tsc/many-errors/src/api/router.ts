import { getUser, getOrders, putName } from "./handlers";
import { Router } from "express";

type Handler = (req: unknown, res: unknown) => Promise<void>;

const routes: Record<string, Handler> = {
  "/user": getUser,
  "/orders": getOrders,
  "/name": putName,
};

export function mount(router: Router) {
  for (const [path, handler] of Object.entries(routes)) {
    router.get(path, handler);
  }
  logger.info(`mounted ${routes.length} routes`);
}

export function lookup(path: string): Handler {
  return routes[path] ?? notFound;
}

let count: number = "0";
count = count + 1;
export const routeCount = count;
