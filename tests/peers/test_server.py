"""An MCP server written with the official Python SDK (`mcp` 2.x) for finch's MCP bridge tests
(tests/it/mcp_bridge.rs). Every tool shows one thing the bridge must map; the command line
picks the transport and the faults.

    python3 test_server.py                      stdio
    python3 test_server.py --http PORT_FILE     Streamable HTTP on 127.0.0.1, a free port written
                                                to PORT_FILE once the socket is listening
    --pid-file PATH                             write this process's pid first
    --hang                                      never answer anything (a server that hangs)
    --exit-at-start                             exit 3 at once with a message on stderr
    --crash-file PATH                           the `crash` tool exits the process the first
                                                time only (PATH remembers that it did)
    --start-delay SECONDS                       wait this long before serving (a server slow to
                                                connect)
    --speak VERSION                             the newest protocol version it negotiates: an
                                                `initialize` offering a newer one is answered
                                                with VERSION (a server of an older revision)
"""

import argparse
import asyncio
import os
import socket
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--http", metavar="PORT_FILE")
parser.add_argument("--pid-file")
parser.add_argument("--hang", action="store_true")
parser.add_argument("--exit-at-start", action="store_true")
parser.add_argument("--crash-file")
parser.add_argument("--speak")
parser.add_argument("--start-delay", type=float, default=0)
options = parser.parse_args()

if options.pid_file:
    with open(options.pid_file, "w") as f:
        f.write(str(os.getpid()))
if options.exit_at_start:
    print("test_server: refusing to start (--exit-at-start)", file=sys.stderr)
    sys.exit(3)
if options.hang:
    while True:
        time.sleep(3600)
if options.start_delay:
    time.sleep(options.start_delay)

# Imported after the faults above, which must act before the SDK's slow import.
from mcp.server.mcpserver import Context, Image, MCPServer  # noqa: E402
from mcp.server.mcpserver.exceptions import ToolError  # noqa: E402
from mcp_types import (  # noqa: E402
    Annotations,
    EmbeddedResource,
    TextContent,
    TextResourceContents,
    ToolAnnotations,
)

# A 1x1 PNG.
PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cfc0f01f0005000201e2b7d3a9"
    "0000000049454e44ae426082"
)

if options.speak:
    import mcp.server.runner as runner

    spoken = tuple(v for v in runner.HANDSHAKE_PROTOCOL_VERSIONS if v <= options.speak)
    runner.HANDSHAKE_PROTOCOL_VERSIONS = spoken or (options.speak,)
    runner.LATEST_HANDSHAKE_VERSION = options.speak

server = MCPServer("finch-test", instructions="Test server for finch's MCP bridge")


@server.tool(title="Echo", description="Echoes back the message it is given")
def echo(message: str) -> str:
    return f"Echo: {message}"


@server.tool(description="Adds two integers")
def add(a: int, b: int) -> int:
    return a + b


@server.tool(description="Always fails with an error the caller can read")
def fail(reason: str = "it was asked to") -> str:
    raise ToolError(f"failed because {reason}")


@server.tool(description="Returns a one-pixel PNG image and a caption")
def pixel() -> list:
    return ["a one-pixel image:", Image(data=PIXEL, format="png")]


@server.tool(description="Returns an embedded text resource")
def document() -> list:
    return [
        EmbeddedResource(
            type="resource",
            resource=TextResourceContents(
                uri="file:///notes/readme.txt", mime_type="text/plain", text="the notes say hello"
            ),
        )
    ]


@server.tool(
    description="Deletes everything (it does not: it only says so)",
    annotations=ToolAnnotations(destructive_hint=True),
)
def wipe() -> str:
    return "nothing was deleted"


@server.tool(description="Returns the value of one HTTP request header (empty on stdio)")
def header(name: str, ctx: Context) -> str:
    headers = ctx.headers or {}
    return headers.get(name.lower(), "")


@server.tool(description="Exits the server process the first time it is called")
def crash() -> str:
    if options.crash_file and not os.path.exists(options.crash_file):
        with open(options.crash_file, "w") as f:
            f.write("crashed")
        os._exit(1)
    return "still alive"


@server.tool(description="Sleeps for the given number of seconds, then answers")
def nap(seconds: float) -> str:
    time.sleep(seconds)
    return f"slept {seconds}s"


@server.tool(description="Says which protocol version the client offered and which one it got")
def protocol(ctx: Context) -> str:
    params = ctx.session.client_params
    offered = params.protocol_version if params is not None else "none"
    return f"offered {offered}, negotiated {ctx.protocol_version}"


@server.tool(description="Counts to `steps`, reporting progress at each step")
async def count(steps: int, ctx: Context) -> str:
    for i in range(steps):
        await ctx.report_progress(i + 1, steps, f"step {i + 1}")
        await asyncio.sleep(0.05)
    return f"counted to {steps}"


@server.tool(description="Writes `started` to the marker file, then waits a minute; "
             "writes `cancelled` there when the call is cancelled")
async def linger(marker: str) -> str:
    with open(marker, "w") as f:
        f.write("started")
    try:
        await asyncio.sleep(60)
    except asyncio.CancelledError:
        with open(marker, "w") as f:
            f.write("cancelled")
        raise
    return "lingered"


def sprouted(word: str) -> str:
    return f"sprouted {word}"


@server.tool(description="Adds the tool `sprouted` and says the tool list changed")
async def grow(ctx: Context) -> str:
    server.add_tool(sprouted, name="sprouted", description="A tool added at run time")
    await ctx.session.send_tool_list_changed()
    return "grew"


@server.tool(description="Returns annotated text and an annotated embedded resource")
def annotated() -> list:
    return [
        TextContent(
            type="text",
            text="for the user",
            annotations=Annotations(audience=["user"], priority=0.9),
        ),
        EmbeddedResource(
            type="resource",
            resource=TextResourceContents(
                uri="file:///notes/todo.md", mime_type="text/markdown", text="- ship it"
            ),
            annotations=Annotations(audience=["assistant"], priority=0.2),
        ),
    ]


def serve_http(port_file: str) -> None:
    import anyio
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    port = sock.getsockname()[1]
    app = server.streamable_http_app(host="127.0.0.1")
    config = uvicorn.Config(app, log_level="warning")
    uv = uvicorn.Server(config)

    async def main() -> None:
        # The port file appears once the socket listens: the test reads it and connects.
        tmp = port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(str(port))
        os.replace(tmp, port_file)
        await uv.serve(sockets=[sock])

    anyio.run(main)


if __name__ == "__main__":
    if options.http:
        serve_http(options.http)
    else:
        server.run()
