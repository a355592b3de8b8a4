import type { MiniToolContext, ToolResult } from "./finch";

interface GreetInput {
  name: string;
}

export function activate(ctx: MiniToolContext): void {
  ctx.subscriptions.push(
    ctx.tools.register<GreetInput>({
      name: "greet",
      title: "Greet someone",
      description: "Says hello to someone by name.",
      inputSchema: {
        type: "object",
        properties: { name: { type: "string", description: "Who to greet" } },
        required: ["name"],
        additionalProperties: false,
      },
      async execute(input): Promise<ToolResult> {
        const greeting = `Hello, ${input.name}!`;
        return {
          content: [{ type: "text", text: greeting }],
          structuredContent: { greeting, length: input.name.length },
        };
      },
    }),
  );
  ctx.logger.info("activated");
}

export function deactivate(): void {}
