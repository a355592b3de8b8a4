import type { MiniToolContext, ToolResult } from "./finch";

/** The part of the host's `mcp.client` capability this tool uses. */
interface McpClient {
  listServers(): Promise<string[]>;
}

export function activate(ctx: MiniToolContext): void {
  // `requires.capabilities` in package.json declares "mcp.client"; `get` throws otherwise.
  const mcp = ctx.capabilities.get<McpClient>("mcp.client");
  ctx.subscriptions.push(
    ctx.tools.register({
      name: "mcp_servers",
      title: "List MCP servers",
      description: "Lists the MCP servers this host can reach through the mcp.client capability.",
      inputSchema: { type: "object", properties: {}, additionalProperties: false },
      async execute(): Promise<ToolResult> {
        const servers = await mcp.listServers();
        const text = servers.length === 0 ? "No MCP servers." : `MCP servers: ${servers.join(", ")}`;
        return { content: [{ type: "text", text }], structuredContent: { servers } };
      },
    }),
  );
}

export function deactivate(): void {}
