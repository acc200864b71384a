import { users } from "./users.js";
import { orders } from "./orders.js";
import { formatPrice } from "../lib/format.js";

const routes = { "/users": users, "/orders": orders };

export function route(req, res, config) {
  var handler = routes[req.url];
  if (handler == undefined) {
    res.statusCode = 404;
    return res.end();
  }
  logger.info(`route ${req.url}`);
  handler(req, res);
}
