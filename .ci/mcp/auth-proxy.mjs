// A loopback proxy for the MCP conformance suite, whose server scenarios cannot send headers: it adds
// `Authorization: Bearer $MCP_TOKEN` to every request and forwards it to the server's /mcp. A Host or
// Origin naming the proxy itself is rewritten to the server's; any other value is passed on as sent,
// so the suite's DNS-rebinding checks still reach the server's own guard.
// usage: node auth-proxy.mjs <listen port> <server origin, e.g. http://127.0.0.1:8787>
import { createServer, request } from "node:http";

const [port, target] = process.argv.slice(2);
const token = process.env.MCP_TOKEN;
if (!port || !target || !token) {
  process.stderr.write("usage: MCP_TOKEN=... node auth-proxy.mjs <port> <server origin>\n");
  process.exit(2);
}
const upstream = new URL(target);
const own = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);

createServer((req, res) => {
  const headers = { ...req.headers, authorization: `Bearer ${token}` };
  if (headers.host && own.has(headers.host)) headers.host = upstream.host;
  if (headers.origin && own.has(headers.origin.replace(/^https?:\/\//, ""))) headers.origin = upstream.origin;
  const forward = request(
    { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  forward.on("error", () => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  req.pipe(forward);
  res.on("close", () => forward.destroy());
}).listen(Number(port), "127.0.0.1", () => process.stderr.write(`auth proxy on ${port} -> ${target}\n`));
