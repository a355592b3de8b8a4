"""An MCP client written with the official Python SDK (`mcp` 2.x) that drives one stdio MCP
server through a plan and reports what happened, as JSON on stdout. finch's tests use it to
drive `finch run --serve mcp` (tests/it/serve_mcp.rs).

Run: python3 tests/peers/mcp_client_serve.py PLAN_JSON COMMAND [ARG...]

PLAN_JSON:
  {"elicitation": [ANSWER...] | null,   # null: the client does not declare elicitation
   "steps": [STEP...]}
  ANSWER: {"action": "accept"|"decline"|"cancel", "content": {...}, "delay": seconds}
          (one per elicitation, in order; none left -> decline)
  STEP:   {"op": "list"}
          {"op": "call", "name": "...", "arguments": {...}}
          {"op": "wait_list_changed", "timeout": seconds}
  "timeout": seconds for the whole run (default 60)

The server runs with this process's environment and working directory, in a session of its
own (the SDK starts it so): it never has a controlling terminal. The report holds the
`initialize` result, one result per step, every elicitation received (message and schema),
and the methods of the notifications received, in order.
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

    async def on_elicit(context, params):
        elicitations.append(dump(params))
        answer = answers.pop(0) if answers else {"action": "decline"}
        if answer.get("delay"):
            await anyio.sleep(answer["delay"])
        return types.ElicitResult(action=answer["action"], content=answer.get("content"))

    async def on_message(message):
        if isinstance(message, Exception):
            notifications.append(f"exception: {message}")
            return
        message = getattr(message, "root", message)
        method = getattr(message, "method", type(message).__name__)
        notifications.append(method)

    server = StdioServerParameters(command=command, args=args, env=dict(os.environ), cwd=os.getcwd())
    report = {"results": [], "elicitations": elicitations, "notifications": notifications}
    # A hung server fails the run instead of hanging the test that started it.
    with anyio.fail_after(plan.get("timeout", 60)):
        await drive(server, plan, report, on_elicit, on_message)
    return report


async def drive(server, plan, report, on_elicit, on_message):
    seen = 0  # list_changed notifications already waited for
    async with stdio_client(server) as (read, write):
        session = ClientSession(
            read,
            write,
            elicitation_callback=on_elicit if plan.get("elicitation") is not None else None,
            message_handler=on_message,
        )
        async with session:
            report["initialize"] = dump(await session.initialize())
            for step in plan["steps"]:
                op = step["op"]
                if op == "list":
                    result = dump(await session.list_tools())
                elif op == "call":
                    result = dump(await session.call_tool(step["name"], step.get("arguments") or {}))
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


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    plan = json.loads(sys.argv[1])
    report = anyio.run(main, plan, sys.argv[2], sys.argv[3:])
    json.dump(report, sys.stdout)
    sys.stdout.write("\n")
