// A bot mini tool as the public chat bots are made: one agent session per chat in a session
// container whose agent profile is the bot's, a secret it reads at start, a settings menu whose
// items log in through a dialog (a QR code it polls for, a credential form), and the replies it
// "sends to the chat" — appended to files under its storage path, one line per delivery, so a
// test sees every event it got and how often.
import fs from "node:fs";
import path from "node:path";

// A PNG image (1×1), as a login server's QR code comes: base64 for a data URL.
const QR_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

export async function activate(ctx) {
  const file = (name) => path.join(ctx.storagePath, name);
  const append = (name, value) => fs.appendFileSync(file(name), JSON.stringify(value) + "\n");
  const read = (name) => {
    try {
      return fs.readFileSync(file(name), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
    } catch {
      return [];
    }
  };
  // Read at start, as a bot reads its token to connect; kept only in memory.
  const token = await ctx.secrets.get("bot.token");

  ctx.subscriptions.push(
    ctx.sessions.onDidReceiveEvent(async (e) => {
      append("events.log", { type: e.type, turnId: e.turnId, sequence: e.sequence ?? null, delta: e.delta ?? null, text: e.text ?? null });
      if (e.type === "turn.completed") {
        // The reply to the chat: what the platform would get.
        await new Promise((resolve) => setTimeout(resolve, 10));
        append("replies.log", { turnId: e.turnId, sequence: e.sequence, text: e.outputText });
      }
    }),
  );

  ctx.tools.register({
    name: "inbound",
    description: "A chat message arrives: it goes to the chat's agent session",
    inputSchema: {
      type: "object",
      properties: { chat: { type: "string" }, text: { type: "string" }, id: { type: "string" } },
      required: ["chat", "text", "id"],
    },
    async execute({ chat, text, id }) {
      let sessionId = await ctx.storage.get("chat:" + chat);
      if (!sessionId) {
        const created = await ctx.sessions.create({ containerId: "chats", title: "Chat with " + chat, activity: "background" });
        sessionId = created.sessionId;
        await ctx.storage.set("chat:" + chat, sessionId);
      }
      const receipt = await ctx.sessions.send(sessionId, { text, idempotencyKey: id });
      return { ...receipt, sessionId };
    },
  });

  ctx.tools.register({
    name: "replies",
    description: "What the bot delivered to the chats, and every session event it got",
    async execute() {
      return { replies: read("replies.log"), events: read("events.log") };
    },
  });

  ctx.tools.register({
    name: "secret",
    description: "Whether the bot has its token, and what a key reads",
    inputSchema: { type: "object", properties: { key: { type: "string" } } },
    async execute({ key }) {
      const value = key ? await ctx.secrets.get(key) : token;
      return { value: value ?? null, atStart: token ?? null };
    },
  });

  ctx.tools.register({
    name: "settings",
    description: "What the menu items stored",
    async execute() {
      return { account: (await ctx.storage.get("account")) ?? null, form: (await ctx.storage.get("form")) ?? null, secret: (await ctx.secrets.get("bot.token")) ?? null };
    },
  });

  ctx.subscriptions.push(
    ctx.settingsMenu.register({
      async getMenu() {
        const account = await ctx.storage.get("account");
        return [
          { id: "status", label: account ? `Logged in as ${account}` : "Not logged in", disabled: true },
          { id: "login", label: "Log in with QR code" },
          { id: "credentials", label: "Set credentials" },
          { id: "broken", label: "Broken item" },
        ];
      },
      async execute(_menu, itemId) {
        if (itemId === "login") return login();
        if (itemId === "credentials") return credentials();
        if (itemId === "broken") throw new Error("the login server is down");
        throw new Error("no menu item " + itemId);
      },
    }),
  );

  // WeChat-like: a QR code in a dialog that stays open while the bot polls for the scan, and
  // closes itself when it came.
  async function login() {
    const png = QR_PNG;
    const dialog = ctx.ui.showModalDialog({
      title: "Scan to log in",
      message: `Scan this code with the app.\n\n![QR](data:image/png;base64,${png})\n\n> The code payload: ${"https://login.example/qr/abc123"}`,
      actions: [{ id: "cancel", label: "Cancel" }],
    });
    let polls = 0;
    const poll = setInterval(() => {
      polls += 1;
      if (fs.existsSync(file("scanned"))) {
        clearInterval(poll);
        dialog.close("scanned");
      }
    }, 50);
    const result = await dialog;
    clearInterval(poll);
    if (result.action === "scanned") await ctx.storage.set("account", "wxid_" + polls);
    append("menu.log", { item: "login", action: result.action });
  }

  // WeCom-like: a credential form; the secret goes to the keyring, the rest to storage.
  async function credentials() {
    const result = await ctx.ui.showModalDialog({
      title: "WeCom credentials",
      actions: [
        { id: "cancel", label: "Cancel" },
        { id: "save", label: "Save", variant: "primary" },
      ],
      fields: [
        { key: "botId", label: "Bot ID", type: "text", required: true },
        { key: "secret", label: "Secret", type: "password", secret: true, required: true },
        { key: "region", label: "Region", type: "select", options: [{ value: "cn", label: "China" }, { value: "intl", label: "International" }], default: "cn" },
      ],
    });
    append("menu.log", { item: "credentials", action: result.action });
    if (result.action !== "save") return;
    await ctx.secrets.set("bot.token", String(result.values.secret));
    await ctx.storage.set("form", { botId: result.values.botId, region: result.values.region });
  }
}
