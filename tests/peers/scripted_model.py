"""A scripted model for the pi tests: an HTTP server on 127.0.0.1 that speaks the OpenAI chat
completions API (`POST /v1/chat/completions`, streamed as server-sent events when the request
asks for it, as pi's `openai-completions` provider does) and answers each request with the next
turn of a script instead of a model.

    python3 scripted_model.py SCRIPT.json LOG.jsonl

SCRIPT.json is a list of turns, one per request, in order:
    {"text": "..."}                                  an answer that ends the agent's turn
    {"tool_calls": [{"name": "read", "arguments": {"path": "a.txt"}}, ...]}
When the script runs out, every further request gets {"text": "done"}.

Every request body is appended to LOG.jsonl (one JSON object a line) before it is answered, so
a test can read what pi sent back: the tool results of the turn before. The first line on stdout
is `PORT <n>`; the server runs until it is killed. Python standard library only.
"""

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

script = json.load(open(sys.argv[1], encoding="utf-8"))
log_path = sys.argv[2]
lock = threading.Lock()
state = {"turn": 0}


def next_turn():
    with lock:
        i = state["turn"]
        state["turn"] += 1
    return script[i] if i < len(script) else {"text": "done"}


def chunk(model, delta, finish=None):
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


USAGE = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path.rstrip("/").endswith("/models"):
            self.reply_json({"object": "list", "data": [{"id": "scripted", "object": "model"}]})
        else:
            self.send_error(404)

    def do_POST(self):
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self.send_error(404)
            return
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        with lock:
            with open(log_path, "a", encoding="utf-8") as log:
                log.write(json.dumps(body) + "\n")
        turn = next_turn()
        model = body.get("model", "scripted")
        calls = [
            {
                "index": i,
                "id": "call_%d_%d" % (state["turn"], i),
                "type": "function",
                "function": {"name": c["name"], "arguments": json.dumps(c.get("arguments", {}))},
            }
            for i, c in enumerate(turn.get("tool_calls", []))
        ]
        finish = "tool_calls" if calls else "stop"
        if not body.get("stream"):
            message = {"role": "assistant", "content": turn.get("text")}
            if calls:
                message["tool_calls"] = [{k: v for k, v in c.items() if k != "index"} for c in calls]
            self.reply_json(
                {
                    "id": "chatcmpl-scripted",
                    "object": "chat.completion",
                    "created": 0,
                    "model": model,
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": USAGE,
                }
            )
            return
        events = [chunk(model, {"role": "assistant", "content": ""})]
        if "text" in turn:
            events.append(chunk(model, {"content": turn["text"]}))
        if calls:
            events.append(chunk(model, {"tool_calls": calls}))
        events.append(chunk(model, {}, finish))
        usage = chunk(model, {})
        usage["choices"] = []
        usage["usage"] = USAGE
        events.append(usage)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        for event in events:
            self.wfile.write(b"data: " + json.dumps(event).encode() + b"\n\n")
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True

    def reply_json(self, value):
        data = json.dumps(value).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print("PORT %d" % server.server_address[1], flush=True)
server.serve_forever()
