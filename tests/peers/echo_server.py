"""A minimal MCP server written with the official Python SDK (`mcp` 2.x): one `echo` tool,
served on stdio. It answers like @modelcontextprotocol/server-everything's `echo`
(`{"message": "hi"}` -> `Echo: hi`), so the two can be compared call for call; finch's
benchmarks drive it (scripts/install-test-peers installs the SDK).

Run: python3 tests/peers/echo_server.py
"""

from mcp.server.mcpserver import MCPServer

server = MCPServer("finch-echo")


@server.tool()
def echo(message: str) -> str:
    """Echoes back the input string"""
    return f"Echo: {message}"


if __name__ == "__main__":
    server.run()
