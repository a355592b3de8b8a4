"""A bare MCP client on stdio for a finch whose permission cards go to the terminal.

Run in a pseudo-terminal, it starts `finch run --serve mcp ...` with that terminal as finch's
controlling terminal (the SDKs' stdio clients start servers in a session of their own, without
one), so a card that no elicitation answers is shown there. It calls Bash with `touch ran.out`
(a card), cancels that call (`notifications/cancelled`) once the file `cancel-now` exists in the
working directory, calls Read on `small.txt`, and writes every message it received to
`report.json`; then prints CLIENT DONE.

usage: mcp_tty_client.py FINCH [FINCH ARGUMENTS...]
"""

import json
import os
import queue
import subprocess
import sys
import threading
import time


def main():
    proc = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    lines = queue.Queue()

    def read():
        for line in proc.stdout:
            lines.put(json.loads(line))
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    received = []

    def send(message):
        proc.stdin.write((json.dumps(message) + "\n").encode())
        proc.stdin.flush()

    def wait_for(request_id, seconds=30):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                message = lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                break
            if message is None:
                break
            received.append(message)
            if message.get("id") == request_id:
                return message
        raise SystemExit(f"no answer to request {request_id}; received {received}")

    def call(request_id, name, arguments):
        send({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
              "params": {"name": name, "arguments": arguments}})

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
          "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                     "clientInfo": {"name": "tty-client", "version": "1"}}})
    wait_for(1)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    call(2, "Bash", {"command": "touch ran.out"})
    deadline = time.monotonic() + 30
    while not os.path.exists("cancel-now"):
        if time.monotonic() > deadline:
            raise SystemExit("cancel-now never appeared")
        time.sleep(0.02)
    send({"jsonrpc": "2.0", "method": "notifications/cancelled",
          "params": {"requestId": 2, "reason": "the test cancels it"}})
    call(3, "Read", {"file_path": "small.txt"})
    wait_for(3)
    # Time for an answer that should never come (to request 2) to arrive anyway.
    time.sleep(0.5)
    while not lines.empty():
        message = lines.get()
        if message is not None:
            received.append(message)
    proc.stdin.close()
    proc.wait(timeout=20)
    with open("report.json", "w") as f:
        json.dump({"received": received}, f)
    print("CLIENT DONE", flush=True)


if __name__ == "__main__":
    main()
