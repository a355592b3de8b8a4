"""An MCP client written with the official Python SDK (`mcp` 2.x) that drives one stdio MCP
server through a plan and reports what happened, as JSON on stdout. finch's tests use it to
drive `finch run --serve mcp` (tests/it/serve_mcp.rs).

Run: python3 tests/peers/mcp_client_serve.py PLAN_JSON COMMAND [ARG...]

PLAN_JSON:
  {"elicitation": [ANSWER...] | null,   # null: the client does not declare elicitation
   "steps": [STEP...]}
  ANSWER: {"action": "accept"|"decline"|"cancel", "content": {...}, "delay": seconds,
           "wait_file": path}   (answered once the file exists)
          (one per elicitation, in order; none left -> decline)
  STEP:   {"op": "list"}
          {"op": "call", "name": "...", "arguments": {...}, "progress": bool}
          {"op": "wait_list_changed", "timeout": seconds}
          {"op": "spawn", "id": "...", "name": "...", "arguments": {...}, "progress": bool}
                    starts a call in the background (its result: `await`)
          {"op": "await", "id": "..."}       the spawned call's result
          {"op": "cancel", "id": "..."}      abandons the spawned call: the SDK sends
                                             notifications/cancelled for it
          {"op": "ping"}
          {"op": "wait_file", "path": "...", "timeout": seconds}   until the file exists
          {"op": "touch", "path": "..."}     creates the file (to release a waiting command)
          {"op": "sleep", "seconds": s}
          {"op": "wait_elicitations", "count": n}   until n elicitations came
  "timeout": seconds for the whole run (default 60)

Besides the results, the report says for each step which spawned calls were still unanswered
when it completed (`pending`), the progress updates each call received (`progress`, by id;
`call` steps as "step<N>"), every message that came from the server (`received`: its `id`,
`method`, and whether it was a result or an error), and every request sent (`sent`: `id`,
`method`, and `name` for a tools/call).

The server runs with this process's environment and working directory, in a session of its
own (the SDK starts it so): it never has a controlling terminal. The report holds the
`initialize` result, one result per step, every elicitation received (message and schema),
the most elicitations open at once, how many the server withdrew (`notifications/cancelled`
for an elicitation still open: `elicitations_withdrawn`), and the methods of the
notifications received, in order.
"""

import json
import os
import sys

import anyio
import mcp.types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


def dump(model):
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


async def main(plan, command, args):
    answers = list(plan.get("elicitation") or [])
    elicitations = []
    notifications = []

    open_now = {"open": 0, "most": 0, "withdrawn": 0}

    async def on_elicit(context, params):
        elicitations.append(dump(params))
        open_now["open"] += 1
        open_now["most"] = max(open_now["most"], open_now["open"])
        try:
            answer = answers.pop(0) if answers else {"action": "decline"}
            if answer.get("delay"):
                await anyio.sleep(answer["delay"])
            if answer.get("wait_file"):
                while not os.path.exists(answer["wait_file"]):
                    await anyio.sleep(0.01)
            return types.ElicitResult(action=answer["action"], content=answer.get("content"))
        except anyio.get_cancelled_exc_class():
            # The server withdrew it (`notifications/cancelled` for its request).
            open_now["withdrawn"] += 1
            raise
        finally:
            open_now["open"] -= 1

    async def on_message(message):
        if isinstance(message, Exception):
            notifications.append(f"exception: {message}")
            return
        message = getattr(message, "root", message)
        method = getattr(message, "method", type(message).__name__)
        notifications.append(method)

    server = StdioServerParameters(command=command, args=args, env=dict(os.environ), cwd=os.getcwd())
    report = {"results": [], "elicitations": elicitations, "notifications": notifications,
              "pending": [], "progress": {}, "received": [], "sent": []}
    # A hung server fails the run instead of hanging the test that started it.
    with anyio.fail_after(plan.get("timeout", 60)):
        await drive(server, plan, report, on_elicit, on_message)
    report["most_elicitations_open"] = open_now["most"]
    report["elicitations_withdrawn"] = open_now["withdrawn"]
    return report


def recorder(report, key):
    """A progress callback that records the updates under `key`."""
    updates = report["progress"].setdefault(key, [])

    async def on_progress(progress, total, message):
        updates.append({"progress": progress, "total": total, "message": message})

    return on_progress


async def tee_out(source, sink, report):
    """Passes the session's messages on to the server, noting each request in `sent`."""
    async with sink:
        async for item in source:
            body = item.message.model_dump(by_alias=True, mode="json", exclude_none=True)
            if "method" in body and "id" in body:
                report["sent"].append({"id": body["id"], "method": body["method"],
                                       "name": (body.get("params") or {}).get("name")})
            await sink.send(item)


async def tee(source, sink, report):
    """Passes the server's messages on to the session, noting each in `received`."""
    async with sink:
        async for item in source:
            message = getattr(item, "message", None)
            body = message.model_dump(by_alias=True, mode="json", exclude_none=True) if message is not None else {}
            report["received"].append({
                "id": body.get("id"),
                "method": body.get("method"),
                "result": "result" in body,
                "error": body.get("error", {}).get("code") if "error" in body else None,
            })
            await sink.send(item)


async def drive(server, plan, report, on_elicit, on_message):
    seen = 0  # list_changed notifications already waited for
    spawned = {}  # id -> {"done": Event, "result": ..., "scope": CancelScope}
    async with stdio_client(server) as (raw_read, raw_write), anyio.create_task_group() as tasks:
        sink, read = anyio.create_memory_object_stream(1000)
        tasks.start_soon(tee, raw_read, sink, report)
        write, outgoing = anyio.create_memory_object_stream(1000)
        tasks.start_soon(tee_out, outgoing, raw_write, report)
        session = ClientSession(
            read,
            write,
            elicitation_callback=on_elicit if plan.get("elicitation") is not None else None,
            message_handler=on_message,
        )

        async def run_spawned(step, entry):
            with entry["scope"]:
                callback = recorder(report, step["id"]) if step.get("progress") else None
                result = await session.call_tool(step["name"], step.get("arguments") or {},
                                                 progress_callback=callback)
                entry["result"] = dump(result)
            entry["done"].set()

        async with session:
            report["initialize"] = dump(await session.initialize())
            for index, step in enumerate(plan["steps"]):
                op = step["op"]
                if op == "list":
                    result = dump(await session.list_tools())
                elif op == "call":
                    callback = recorder(report, f"step{index}") if step.get("progress") else None
                    result = dump(await session.call_tool(step["name"], step.get("arguments") or {},
                                                          progress_callback=callback))
                elif op == "spawn":
                    entry = {"done": anyio.Event(), "result": None, "scope": anyio.CancelScope()}
                    spawned[step["id"]] = entry
                    tasks.start_soon(run_spawned, step, entry)
                    result = {"spawned": step["id"]}
                elif op == "await":
                    entry = spawned[step["id"]]
                    await entry["done"].wait()
                    result = entry["result"]
                elif op == "cancel":
                    entry = spawned[step["id"]]
                    entry["scope"].cancel()
                    entry["done"].set()
                    result = {"cancelled": step["id"]}
                elif op == "ping":
                    result = dump(await session.send_ping())
                elif op == "wait_file":
                    with anyio.move_on_after(step.get("timeout", 30)):
                        while not os.path.exists(step["path"]):
                            await anyio.sleep(0.01)
                    result = {"exists": os.path.exists(step["path"])}
                elif op == "touch":
                    open(step["path"], "a").close()
                    result = {}
                elif op == "wait_elicitations":
                    while len(report["elicitations"]) < step["count"]:
                        await anyio.sleep(0.01)
                    result = {}
                elif op == "sleep":
                    await anyio.sleep(step["seconds"])
                    result = {}
                elif op == "wait_list_changed":
                    count = lambda: report["notifications"].count("notifications/tools/list_changed")
                    with anyio.move_on_after(step.get("timeout", 5)):
                        while count() <= seen:
                            await anyio.sleep(0.01)
                    result = {"received": count() > seen}
                    seen = count()
                else:
                    raise SystemExit(f"unknown step op {op!r}")
                report["results"].append(result)
                report["pending"].append(sorted(k for k, e in spawned.items() if not e["done"].is_set()))
            for entry in spawned.values():
                await entry["done"].wait()
        tasks.cancel_scope.cancel()


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    plan = json.loads(sys.argv[1])
    report = anyio.run(main, plan, sys.argv[2], sys.argv[3:])
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")
