"""A minimal sequential JSON-RPC driver for stdio MCP servers (benches/mcp.sh).

Starts COMMAND, does the `initialize` handshake, then sends pre-serialized `tools/call`
requests one at a time: write one request, read lines until its response, record the time
from the write to the response. Nothing is parsed on the timed path except finding the end of
the response line and checking its id; the first response and every 1,000th one are parsed
and must not be errors. Prints one JSON object: calls/s, p50, p95, p99 (µs), calls.

Run: python3 benches/mcp_driver.py --tool NAME --arguments JSON [--calls N] [--warmup N] -- COMMAND [ARG...]
"""

import argparse
import json
import os
import subprocess
import sys
import time


class Lines:
    """Reads whole lines from a raw pipe with as few syscalls and copies as possible."""

    def __init__(self, fd):
        self.fd = fd
        self.buf = b""

    def next(self):
        while True:
            end = self.buf.find(b"\n")
            if end >= 0:
                line, self.buf = self.buf[:end], self.buf[end + 1 :]
                return line
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                raise SystemExit("the server closed its stdout")
            self.buf += chunk


def request(id_, method, params):
    return (json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params}) + "\n").encode()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tool", required=True)
    parser.add_argument("--arguments", default="{}")
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--warmup", type=int, default=500)
    parser.add_argument("--expect-error", action="store_true",
                        help="the calls are expected to answer isError (to time a server's loop alone)")
    parser.add_argument("command", nargs="+")
    opts = parser.parse_args()

    proc = subprocess.Popen(opts.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    out_fd, in_fd = proc.stdout.fileno(), proc.stdin.fileno()
    lines = Lines(out_fd)

    def answer(id_):
        marker = b'"id":%d' % id_
        while True:
            line = lines.next()
            # Notifications and server requests are skipped; only this id's response counts.
            if marker in line and b'"method"' not in line[:40]:
                return line

    os.write(in_fd, request(0, "initialize", {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "finch-bench-driver", "version": "1"},
    }))
    init = json.loads(answer(0))
    if "result" not in init:
        raise SystemExit(f"initialize failed: {init}")
    os.write(in_fd, b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')

    arguments = json.loads(opts.arguments)
    total = opts.warmup + opts.calls
    requests = [request(i, "tools/call", {"name": opts.tool, "arguments": arguments}) for i in range(1, total + 1)]
    times = []
    clock = time.perf_counter_ns
    write = os.write
    started = clock()
    for i, payload in enumerate(requests, start=1):
        if i == opts.warmup + 1:
            started = clock()
        t0 = clock()
        write(in_fd, payload)
        line = answer(i)
        elapsed = clock() - t0
        if i == 1 or i % 1000 == 0:
            response = json.loads(line)
            result = response.get("result")
            if result is None or bool(result.get("isError")) != opts.expect_error:
                raise SystemExit(f"call {i} answered unexpectedly: {line.decode()}")
        if i > opts.warmup:
            times.append(elapsed)
    wall = clock() - started
    proc.stdin.close()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    times.sort()
    pick = lambda q: times[min(len(times) - 1, int(len(times) * q))] / 1000
    json.dump({
        "calls": len(times),
        "calls_per_s": len(times) / (wall / 1e9),
        "p50_us": pick(0.50),
        "p95_us": pick(0.95),
        "p99_us": pick(0.99),
    }, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
