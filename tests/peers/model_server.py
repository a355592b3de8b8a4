"""A scripted model server for the agent tests (tests/it/agents.rs): it speaks just enough of
the OpenAI Responses API (`POST …/responses`, server-sent events, what Codex CLI uses) and of
the Anthropic Messages API (`POST …/v1/messages`, streamed or not, what Claude Code uses) to
drive a real coding agent through a fixed list of tool calls, with no real model.

    python3 model_server.py SCRIPT.json LOG.jsonl

prints `listening <port>` on stdout once it accepts connections on 127.0.0.1, and serves until
it is killed. SCRIPT is `{"steps": [{"tool": "Read", "arguments": {...}}, ...], "final": "..."}`.

Which step a request gets: the number of results of this server's own tool calls (call ids
`call_step_<n>`) already in the request's conversation. So a retried request gets the same
step again, and a side request an agent makes on its own (a title, a summary: no finch tool
among its tools) is answered with plain text and moves nothing. A step's `tool` is a finch
tool name; the server calls the tool the agent offers for it (`mcp__finch__<tool>` in Claude
Code; `<tool>` in the namespace `mcp__finch` in Codex), never an agent's own tool of that
name. When the agent offers none, it answers with the text `NO TOOL <tool>` instead, so the
log shows what was missing.

Every request is appended to LOG as one JSON line: `{"path", "api", "body", "step"}`.
"""

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SCRIPT = json.load(open(sys.argv[1]))
LOG = sys.argv[2]
LOCK = threading.Lock()


def log(entry):
    with LOCK, open(LOG, "a") as f:
        f.write(json.dumps(entry) + "\n")


def tool_names(api, body):
    names = []
    for tool in body.get("tools") or []:
        if api == "responses" and tool.get("type") == "namespace":
            # A namespace of tools: the model calls `<namespace><name>`.
            for inner in tool.get("tools") or []:
                names.append((tool.get("name", ""), inner.get("name", "")))
        elif tool.get("name"):
            names.append(("", tool["name"]))
    return names


def find_tool(names, wanted):
    """finch's tool `wanted` among the agent's: `mcp__finch__<wanted>`, or `<wanted>` in the
    namespace `mcp__finch` (never an agent's own tool of the same name)."""
    for namespace, name in names:
        if (namespace, name) in (("", "mcp__finch__" + wanted), ("mcp__finch", wanted)):
            return namespace, name
    return None


def is_main(names):
    """A request of the agent's own loop: it offers finch's tools (ToolSearch is always listed)."""
    return find_tool(names, "ToolSearch") is not None


def results_done(api, body):
    """How many of this server's tool calls have their results in the conversation."""
    seen = set()
    if api == "responses":
        for item in body.get("input") or []:
            if isinstance(item, dict) and item.get("type") in (
                "function_call_output",
                "custom_tool_call_output",
            ):
                call_id = item.get("call_id", "")
                if call_id.startswith("call_step_"):
                    seen.add(call_id)
    else:
        for message in body.get("messages") or []:
            content = message.get("content")
            if not isinstance(content, list):
                continue
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    call_id = block.get("tool_use_id", "")
                    if call_id.startswith("call_step_"):
                        seen.add(call_id)
    return len(seen)


def plan(api, body):
    """(step number or None, tool (namespace, name) or None, arguments or text)."""
    names = tool_names(api, body)
    if not is_main(names):
        return None, None, "ok"
    n = results_done(api, body)
    steps = SCRIPT.get("steps", [])
    if n >= len(steps):
        return n, None, SCRIPT.get("final", "done")
    step = steps[n]
    found = find_tool(names, step["tool"])
    if found is None:
        return n, None, "NO TOOL " + step["tool"]
    return n, found, step.get("arguments", {})


def sse(event, data):
    return ("event: %s\ndata: %s\n\n" % (event, json.dumps(data))).encode()


def responses_events(n, tool, what):
    rid = "resp_%s" % (n if n is not None else "side")
    out = [sse("response.created", {"type": "response.created", "response": {"id": rid}})]
    if tool is None:
        item = {
            "type": "message",
            "role": "assistant",
            "id": "msg_%s" % rid,
            "content": [{"type": "output_text", "text": what}],
        }
    else:
        namespace, name = tool
        item = {
            "type": "function_call",
            "id": "fc_%d" % n,
            "call_id": "call_step_%d" % n,
            "name": name,
            "arguments": json.dumps(what),
        }
        if namespace:
            item["namespace"] = namespace
    out.append(sse("response.output_item.done", {"type": "response.output_item.done", "item": item}))
    usage = {
        "input_tokens": 10,
        "input_tokens_details": None,
        "output_tokens": 10,
        "output_tokens_details": None,
        "total_tokens": 20,
    }
    out.append(
        sse(
            "response.completed",
            {"type": "response.completed", "response": {"id": rid, "usage": usage}},
        )
    )
    return b"".join(out)


def anthropic_message(n, tool, what, model):
    mid = "msg_%s" % (n if n is not None else "side")
    if tool is None:
        block = {"type": "text", "text": what}
        stop = "end_turn"
    else:
        block = {"type": "tool_use", "id": "call_step_%d" % n, "name": tool[1], "input": what}
        stop = "tool_use"
    return {
        "id": mid,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [block],
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 10},
    }


def anthropic_events(message):
    block = message["content"][0]
    start = dict(message, content=[], stop_reason=None)
    out = [sse("message_start", {"type": "message_start", "message": start})]
    if block["type"] == "text":
        out.append(
            sse(
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            )
        )
        delta = {"type": "text_delta", "text": block["text"]}
    else:
        opened = dict(block, input={})
        out.append(
            sse("content_block_start", {"type": "content_block_start", "index": 0, "content_block": opened})
        )
        delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
    out.append(sse("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}))
    out.append(sse("content_block_stop", {"type": "content_block_stop", "index": 0}))
    out.append(
        sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": 10},
            },
        )
    )
    out.append(sse("message_stop", {"type": "message_stop"}))
    return b"".join(out)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body, content_type="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        log({"path": self.path, "api": "get", "body": None, "step": None})
        if self.path.rstrip("/").endswith("/models"):
            self.reply(200, json.dumps({"object": "list", "data": [], "models": []}).encode())
        else:
            self.reply(404, b'{"error": "not found"}')

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        path = self.path.split("?")[0]
        if path.endswith("/responses"):
            api = "responses"
        elif path.endswith("/messages/count_tokens"):
            log({"path": path, "api": "count_tokens", "body": body, "step": None})
            self.reply(200, b'{"input_tokens": 10}')
            return
        elif path.endswith("/messages"):
            api = "messages"
        else:
            log({"path": path, "api": "other", "body": body, "step": None})
            self.reply(404, b'{"error": "not found"}')
            return
        n, tool, what = plan(api, body)
        log({"path": path, "api": api, "body": body, "step": n})
        if api == "responses":
            self.reply(200, responses_events(n, tool, what), "text/event-stream")
            return
        message = anthropic_message(n, tool, what, body.get("model", "model"))
        if body.get("stream"):
            self.reply(200, anthropic_events(message), "text/event-stream")
        else:
            self.reply(200, json.dumps(message).encode())


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print("listening %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
