import { createServer } from "node:http";
import { route } from "./routes/router.js";
import { loadConfig } from "./lib/config.js";

var port = process.env.PORT || 8080;
let config = loadConfig();

const server = createServer((req, res) => {
  if (req.url == "/health") return res.end("ok");
  route(req, res, config);
});

server.listen(port, () => {
  console.log(`listening on ${port}`);
  logger.info("started");
});
