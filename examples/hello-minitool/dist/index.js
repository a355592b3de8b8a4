// A minimal mini tool: registers `hello_greet`, which the host exposes as `hello-minitool_greet`.
export function activate(ctx) {
  ctx.subscriptions.push(
    ctx.tools.register({
      name: "greet",
      title: "Greet someone",
      description: "Returns a greeting for the given name.",
      inputSchema: {
        type: "object",
        properties: { name: { type: "string" } },
        required: ["name"],
      },
      async execute(input) {
        return { content: [{ type: "text", text: `Hello, ${input.name}!` }] };
      },
    }),
  );
}

export function deactivate() {}
