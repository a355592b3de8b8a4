#!/usr/bin/env bash
# Benchmarks network by host (issue 42).
#
#   1. Activation: `finch tool call ping_ping` of a mini tool (one process: start node confined,
#      activate, call) declaring `network: true` with `networkHosts` (its own network
#      namespace, the proxy's listener handed over) against the same with `network: true`
#      alone; interleaved, RUNS (default 20) each per round. Goal: ratio of medians ≤ 1.1×.
#   2. One HTTP request through finch's proxy against a direct one, on loopback: a Python
#      client in `finch sandbox run --host 127.0.0.1:PORT` (through the proxy, a new
#      connection each) and in `finch sandbox run --network` (direct), 200 GETs each to a
#      loopback server; the median per request. Goal: the proxy adds ≤ 1 ms.
#
# Builds `cargo build --release` first; needs node and python3. ROUNDS (default 3).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

command -v python3 >/dev/null || die "python3 not found on PATH"
command -v node >/dev/null || die "node not found on PATH"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/finch-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

build_finch

export HOME="$tmp/home" NO_COLOR=1 FINCH_RUNTIME_HOME="$tmp/runtime" FINCH_AGENT_HOME="$tmp/agent"
unset HTTP_PROXY HTTPS_PROXY http_proxy https_proxy ALL_PROXY all_proxy NO_PROXY no_proxy
mkdir -p "$HOME" "$tmp/work"
cd "$tmp/work"

fixture() { # DIR PERMISSIONS
    mkdir -p "$1/dist"
    cat >"$1/package.json" <<JSON
{"name": "ping", "version": "1.0.0", "main": "dist/index.mjs",
 "finch": {"contributes": {"tools": true}, "permissions": $2}}
JSON
    cat >"$1/dist/index.mjs" <<'JS'
export function activate(ctx) {
  ctx.tools.register({ name: "ping", description: "Answers pong",
    inputSchema: { type: "object", properties: {} }, async execute() { return "pong"; } });
}
JS
}
fixture "$tmp/hosts" '{"network": true, "networkHosts": ["api.example.com:443"]}'
fixture "$tmp/open" '{"network": true}'

python3 - "$finch" "$tmp" "${ROUNDS:-3}" "${RUNS:-20}" <<'PY'
import http.server, os, statistics, subprocess, sys, threading, time

finch, tmp, rounds, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

def call(dir):
    t = time.perf_counter()
    subprocess.run([finch, "tool", "call", "ping_ping", "{}", "--approve", "ping_ping",
                    "--minitool", dir], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t

hosts, open_ = [], []
for _ in range(rounds):
    for _ in range(runs):
        hosts.append(call(f"{tmp}/hosts"))
        open_.append(call(f"{tmp}/open"))
mh, mo = statistics.median(hosts), statistics.median(open_)
print(f"activation + call, networkHosts: median {mh*1000:.1f} ms")
print(f"activation + call, network true: median {mo*1000:.1f} ms")
print(f"ratio {mh/mo:.3f}x (goal <= 1.1x)")

class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.send_header("Content-Length", "2"); self.end_headers()
        self.wfile.write(b"ok")
    def log_message(self, *a): pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
port = server.server_address[1]
client = f"""
import os, statistics, time, urllib.request
opener = urllib.request.build_opener() if os.environ.get("HTTP_PROXY") else urllib.request.build_opener(urllib.request.ProxyHandler({{}}))
times = []
for _ in range(200):
    t = time.perf_counter()
    opener.open("http://127.0.0.1:{port}/").read()
    times.append(time.perf_counter() - t)
print(statistics.median(times))
"""
def requests(flag):
    out = subprocess.run([finch, "sandbox", "run", *flag, "--", "python3", "-c", client],
                         check=True, capture_output=True, text=True).stdout
    return float(out.strip().splitlines()[-1])
proxied, direct = [], []
for _ in range(rounds):
    proxied.append(requests(["--host", f"127.0.0.1:{port}"]))
    direct.append(requests(["--network"]))
mp, md = statistics.median(proxied), statistics.median(direct)
print(f"HTTP GET through the proxy: median {mp*1000:.3f} ms")
print(f"HTTP GET direct:            median {md*1000:.3f} ms")
print(f"added {(mp-md)*1000:.3f} ms per request (goal <= 1 ms)")
PY
