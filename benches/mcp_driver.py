"""A minimal sequential JSON-RPC driver for stdio MCP servers (benches/mcp.sh).

Starts COMMAND, does the `initialize` handshake, then sends pre-serialized `tools/call`
requests one at a time: write one request, read lines until its response, record the time
from the write to the response. Nothing is parsed on the timed path except finding the end of
the response line and checking its id; the first response and every 1,000th one are parsed
and must not be errors. Prints one JSON object: calls/s, p50, p95, p99 (µs), calls.

With `--in-flight K` (K > 1) it keeps K calls outstanding instead: K requests are written at
once and each response is followed by the next request, as K callers of one connection would
(an agent running K tool calls side by side); each call is still timed from its write to its
response.

Run: python3 benches/mcp_driver.py --tool NAME --arguments JSON [--calls N] [--warmup N]
         [--in-flight K] -- COMMAND [ARG...]
"""

import argparse
import json
import os
import re
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
    parser.add_argument("--in-flight", type=int, default=1,
                        help="calls kept outstanding at once (default 1: one at a time)")
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
    if opts.in_flight > 1:
        times, wall = in_flight(opts, requests, lines, in_fd)
        report(proc, times, wall)
        return
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
    report(proc, times, wall)


RESPONSE_ID = re.compile(rb'"id":\s*(\d+)')


def in_flight(opts, requests, lines, in_fd):
    """Keeps `opts.in_flight` calls outstanding; returns the timed calls' times and the wall
    time from the first timed call's write to the last response."""
    clock = time.perf_counter_ns
    sent_at = {}
    times = []
    total = len(requests)
    next_request = 0
    answered = 0
    started = None

    def send():
        nonlocal next_request, started
        i = next_request + 1
        if i == opts.warmup + 1:
            started = clock()
        sent_at[i] = clock()
        os.write(in_fd, requests[next_request])
        next_request += 1

    for _ in range(min(opts.in_flight, total)):
        send()
    while answered < total:
        line = lines.next()
        if b'"method"' in line[:40]:
            continue
        match = RESPONSE_ID.search(line)
        if not match:
            raise SystemExit(f"a response without an id: {line[:200]!r}")
        i = int(match.group(1))
        elapsed = clock() - sent_at.pop(i)
        answered += 1
        if answered == 1 or answered % 1000 == 0:
            result = json.loads(line).get("result")
            if result is None or bool(result.get("isError")) != opts.expect_error:
                raise SystemExit(f"call {i} answered unexpectedly: {line.decode()}")
        if i > opts.warmup:
            times.append(elapsed)
        if next_request < total:
            send()
    wall = clock() - (started or clock())
    return times, wall


def report(proc, times, wall):
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
