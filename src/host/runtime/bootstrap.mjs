// The finch mini tool bootstrap (SPEC §9.1): runs ONE mini tool inside this node process and
// speaks JSON-RPC 2.0, one JSON document per line, with the finch host over file descriptor 3 —
// a socket the host passed in. The mini tool's own console.*, stdout and stderr go to its log
// file (the host opened it as this process's stdout and stderr), so nothing it prints can reach
// the channel. This file ships inside the finch binary; it must never import anything outside
// node's standard library, and must never let a mini tool's mistake throw out of a handler.
//
// Host → bootstrap: activate, execute, $/cancel, deactivate, capability.invoke, discover.
// Bootstrap → host: tools.*, storage.*, secrets.*, capabilities.*, minitools.*, ui.*, progress.

import net from "node:net";
import { pathToFileURL } from "node:url";
import { format } from "node:util";

// The global, taken before the mini tool's code runs (which could replace globalThis.process).
// Not imported: the same object, and importing node:process costs ~2 ms of CPU per start.
const process = globalThis.process;

const RPC_FD = 3;
const channel = new net.Socket({ fd: RPC_FD, readable: true, writable: true });
channel.setEncoding("utf8");
// The host went away (ended, crashed, or was killed): so does this mini tool.
channel.on("end", () => process.exit(0));
channel.on("close", () => process.exit(0));
channel.on("error", () => process.exit(0));

let nextId = 1;
const pending = new Map();
const calls = new Map();
const tools = new Map();
const provided = new Map();
const discoveryProviders = new Set();
let entry = null;
let ctx = null;
let activating = null;

function send(message) {
  channel.write(JSON.stringify(message) + "\n");
}

function request(method, params) {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    try {
      send({ jsonrpc: "2.0", id, method, params });
    } catch (err) {
      pending.delete(id);
      reject(new TypeError(`${method}: the arguments cannot be sent as JSON (${err.message})`));
    }
  });
}

function notify(method, params) {
  try {
    send({ jsonrpc: "2.0", method, params });
  } catch (err) {
    logLine("warn", `${method}: not sent (${err.message})`);
  }
}

function errorFromHost(error) {
  const err = new Error(error && error.message ? error.message : "the finch host refused the request");
  if (error && error.code !== undefined) err.code = error.code;
  return err;
}

function toRpcError(err) {
  if (err instanceof Error) {
    return { code: -32000, message: err.message || String(err), data: { name: err.name, stack: err.stack } };
  }
  return { code: -32000, message: typeof err === "string" ? err : `threw ${safeJson(err)}` };
}

function safeJson(value) {
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

function reply(id, result) {
  let text;
  try {
    text = JSON.stringify({ jsonrpc: "2.0", id, result: result === undefined ? null : result });
  } catch (err) {
    text = JSON.stringify({
      jsonrpc: "2.0",
      id,
      error: { code: -32000, message: `the result cannot be sent as JSON: ${err.message}` },
    });
  }
  channel.write(text + "\n");
}

let buffered = "";
channel.on("data", (chunk) => {
  buffered += chunk;
  let newline;
  while ((newline = buffered.indexOf("\n")) >= 0) {
    const line = buffered.slice(0, newline);
    buffered = buffered.slice(newline + 1);
    if (line.trim() !== "") dispatch(line);
  }
});

function dispatch(line) {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    logLine("error", `finch sent a line that is not JSON: ${line.slice(0, 200)}`);
    return;
  }
  if (message.method === undefined) {
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    if (message.error) waiting.reject(errorFromHost(message.error));
    else waiting.resolve(message.result);
    return;
  }
  const handler = handlers[message.method];
  const params = message.params ?? {};
  if (message.id === undefined) {
    if (handler) {
      Promise.resolve()
        .then(() => handler(params))
        .catch((err) => logLine("error", `${message.method}: ${err && err.stack ? err.stack : err}`));
    }
    return;
  }
  if (!handler) {
    send({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: `unknown method ${message.method}` } });
    return;
  }
  Promise.resolve()
    .then(() => handler(params, message.id))
    .then(
      (result) => reply(message.id, result),
      (err) => send({ jsonrpc: "2.0", id: message.id, error: toRpcError(err) }),
    );
}

// The log file is this process's stderr; the logger writes dated, levelled lines to it.
function logLine(level, text) {
  process.stderr.write(`${new Date().toISOString()} [${level}] ${text}\n`);
}

function makeLogger(scope) {
  const write = (level) => (...args) => logLine(level, scope ? `${scope}: ${format(...args)}` : format(...args));
  return {
    trace: write("trace"),
    debug: write("debug"),
    info: write("info"),
    log: write("info"),
    warn: write("warn"),
    error: write("error"),
    child: (name) => makeLogger(scope ? `${scope}.${name}` : name),
  };
}

function disposable(dispose) {
  let done = false;
  return {
    dispose() {
      if (done) return;
      done = true;
      dispose();
    },
  };
}

// Requests made while activate() runs are awaited before activation is reported done, so that a
// registration the host refused fails the activation with the host's reason.
function track(promise, what) {
  if (activating) activating.push(promise);
  else promise.catch((err) => logLine("error", `${what}: ${err.message}`));
  return promise;
}

function flatten(messages, prefix = "", out = {}) {
  for (const [key, value] of Object.entries(messages ?? {})) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (value && typeof value === "object" && !Array.isArray(value)) flatten(value, name, out);
    else if (typeof value === "string") out[name] = value;
  }
  return out;
}

function methodNames(impl) {
  const names = new Set();
  for (let o = impl; o && o !== Object.prototype && o !== Function.prototype; o = Object.getPrototypeOf(o)) {
    for (const key of Object.getOwnPropertyNames(o)) {
      if (key !== "constructor" && typeof impl[key] === "function") names.add(key);
    }
  }
  return [...names];
}

function capabilityProxy(name, methods) {
  const proxy = {};
  for (const method of methods) {
    proxy[method] = (...args) => request("capabilities.invoke", { name, method, args });
  }
  return Object.freeze(proxy);
}

function makeStorage() {
  return {
    get: (key, fallback) =>
      request("storage.get", { key: String(key) }).then((r) => (r && r.found ? r.value : fallback)),
    set: (key, value) =>
      value === undefined
        ? request("storage.delete", { key: String(key) }).then(() => undefined)
        : request("storage.set", { key: String(key), value }).then(() => undefined),
    update: (key, value) => ctx.storage.set(key, value),
    delete: (key) => request("storage.delete", { key: String(key) }).then((r) => Boolean(r && r.deleted)),
    clear: () => request("storage.clear", {}).then(() => undefined),
    keys: () => request("storage.keys", {}),
  };
}

function makeSecrets() {
  return {
    get: (key) => request("secrets.get", { key: String(key) }).then((r) => (r && r.value != null ? r.value : undefined)),
    set: (key, value) => {
      if (typeof value !== "string") return Promise.reject(new TypeError("secrets.set: the value must be a string"));
      return request("secrets.set", { key: String(key), value }).then(() => undefined);
    },
    delete: (key) => request("secrets.delete", { key: String(key) }).then((r) => Boolean(r && r.deleted)),
  };
}

function makeUi(extra) {
  const known = {
    toast: (message, options) => notify("ui.notify", notice("toast", message, options)),
    notify: (message, options) => notify("ui.notify", notice("notify", message, options)),
    showInformationMessage: (message) => notify("ui.notify", notice("notify", message, { level: "info" })),
    showWarningMessage: (message) => notify("ui.notify", notice("notify", message, { level: "warning" })),
    showErrorMessage: (message) => notify("ui.notify", notice("notify", message, { level: "error" })),
    confirm: (options) => request("ui.confirm", { ...prompt(options), ...extra }),
    modal: (options) => request("ui.modal", { ...prompt(options), ...extra }),
    form: (options) => request("ui.form", { ...prompt(options), ...extra }),
  };
  // Panels, canvases, composer actions, settings menus, icons and anything else a headless host
  // cannot show are accepted and recorded, never thrown: the same mini tool runs in the app.
  return new Proxy(known, {
    get(target, prop) {
      if (prop in target) return target[prop];
      if (typeof prop === "symbol" || prop === "then" || prop === "toJSON") return undefined;
      return (...args) => {
        notify("ui.unsupported", { kind: String(prop), detail: describe(args[0]) });
        return disposable(() => {});
      };
    },
  });
}

function notice(kind, message, options) {
  const body = typeof message === "object" && message !== null ? message : { message: String(message), ...(options ?? {}) };
  return { kind, message: String(body.message ?? body.title ?? ""), title: body.title, level: body.level ?? body.type };
}

function prompt(options) {
  return typeof options === "string" ? { message: options } : { ...(options ?? {}) };
}

function describe(value) {
  if (value === undefined || value === null) return null;
  if (typeof value !== "object") return String(value);
  const id = value.id ?? value.name ?? value.title;
  return id === undefined ? null : String(id);
}

function makeCtx(p) {
  const info = Object.freeze({ ...p.minitool });
  const settings = { ...(p.settings ?? {}) };
  const messages = flatten(p.i18n?.messages);
  const provides = new Set(p.capabilities?.provides ?? []);
  const requires = new Set(p.capabilities?.requires ?? []);
  const list = {
    listContributions: (point) => request("minitools.listContributions", { point: String(point) }),
    list: () => request("minitools.list", {}),
  };
  return {
    subscriptions: [],
    minitool: info,
    extension: info,
    storagePath: p.storagePath,
    storage: makeStorage(),
    secrets: makeSecrets(),
    settings: {
      get: (key, fallback) => (Object.prototype.hasOwnProperty.call(settings, key) ? settings[key] : fallback),
      all: () => ({ ...settings }),
      onDidChange: () => disposable(() => {}),
    },
    logger: makeLogger(""),
    i18n: {
      locale: p.i18n?.locale ?? "en-US",
      has: (key) => Object.prototype.hasOwnProperty.call(messages, key),
      t: (key, params) => {
        const text = Object.prototype.hasOwnProperty.call(messages, key) ? messages[key] : key;
        return text.replace(/\{\{?\s*([\w.-]+)\s*\}?\}/g, (whole, name) =>
          params && params[name] !== undefined ? String(params[name]) : whole,
        );
      },
    },
    app: {
      getInfo: () => ({ ...p.app, platform: process.platform, arch: process.arch, nodeVersion: process.version }),
    },
    session: p.session ?? null,
    workspace: p.workspace ?? null,
    tools: {
      register: (def) => registerTool(def),
      registerDiscoveryProvider: (provider) => registerDiscovery(provider),
      registerSearchProvider: (provider) => registerDiscovery(provider),
    },
    capabilities: {
      provide(name, impl) {
        if (typeof name !== "string" || name === "") throw new TypeError("capabilities.provide needs a capability name");
        if (!provides.has(name)) {
          throw new Error(`capabilities.provide("${name}"): declare it in the manifest's provides.capabilities first`);
        }
        if (!impl || (typeof impl !== "object" && typeof impl !== "function")) {
          throw new TypeError(`capabilities.provide("${name}") needs an object of methods`);
        }
        provided.set(name, impl);
        track(request("capabilities.provide", { name, methods: methodNames(impl) }), `capabilities.provide(${name})`);
        return disposable(() => {
          if (provided.get(name) === impl) {
            provided.delete(name);
            notify("capabilities.revoke", { name });
          }
        });
      },
      get(name) {
        if (!requires.has(name)) {
          return Promise.reject(
            new Error(`capabilities.get("${name}"): declare it in the manifest's requires.capabilities first`),
          );
        }
        return request("capabilities.get", { name }).then((r) => capabilityProxy(name, r.methods ?? []));
      },
      has: (name) => (requires.has(name) ? request("capabilities.has", { name }) : Promise.resolve(false)),
    },
    minitools: list,
    extensions: list,
    ui: makeUi({}),
  };
}

function registerTool(def) {
  if (!def || typeof def !== "object") throw new TypeError("tools.register needs a tool definition object");
  const name = def.name;
  if (typeof name !== "string" || name === "") throw new TypeError("tools.register: the tool needs a non-empty string name");
  if (typeof def.execute !== "function") throw new TypeError(`tools.register("${name}"): execute must be a function`);
  if (tools.has(name)) throw new Error(`tools.register("${name}"): a tool with this name is already registered`);
  tools.set(name, def);
  const wire = {
    name,
    title: def.title ?? def.displayName ?? def.label,
    description: def.description,
    inputSchema: def.inputSchema ?? def.parameters,
    risk: def.risk,
    exposure: def.exposure,
    timeoutMs: def.timeoutMs,
    owner: def.owner,
  };
  const registered = request("tools.register", wire).catch((err) => {
    if (tools.get(name) === def) tools.delete(name);
    throw new Error(`tools.register("${name}"): ${err.message}`);
  });
  track(registered, `tools.register(${name})`);
  return disposable(() => {
    if (tools.get(name) === def) {
      tools.delete(name);
      notify("tools.unregister", { name });
    }
  });
}

function registerDiscovery(provider) {
  const ok = typeof provider === "function" || (provider && ["discover", "search", "provide"].some((m) => typeof provider[m] === "function"));
  if (!ok) throw new TypeError("a discovery provider is a function (query) => results, or an object with discover(query)");
  discoveryProviders.add(provider);
  notify("tools.discovery", { count: discoveryProviders.size });
  return disposable(() => {
    discoveryProviders.delete(provider);
    notify("tools.discovery", { count: discoveryProviders.size });
  });
}

async function runDiscovery(provider, query, options) {
  if (typeof provider === "function") return provider(query, options);
  for (const method of ["discover", "search", "provide"]) {
    if (typeof provider[method] === "function") return provider[method](query, options);
  }
  return [];
}

const handlers = {
  async activate(p) {
    entry = await import(pathToFileURL(p.entryPath).href);
    if (typeof entry.activate !== "function") {
      throw new Error(`${p.main} does not export a named activate function (write export function activate(ctx) { … })`);
    }
    ctx = makeCtx(p);
    activating = [];
    try {
      await entry.activate(ctx);
      while (activating.length > 0) {
        const batch = activating.splice(0);
        await Promise.all(batch);
      }
    } catch (err) {
      logLine("error", `activate failed: ${err && err.stack ? err.stack : err}`);
      throw err;
    } finally {
      activating = null;
    }
    return { tools: tools.size };
  },

  async execute(p, id) {
    const def = tools.get(p.name);
    if (!def) throw new Error(`no tool named "${p.name}" is registered`);
    if (p.session) {
      ctx.session = p.session;
      if (p.workspace) ctx.workspace = p.workspace;
    }
    const controller = new AbortController();
    calls.set(id, controller);
    const toolCallId = p.exec?.toolCallId;
    const exec = {
      toolCallId,
      sessionId: p.exec?.sessionId,
      cwd: p.exec?.cwd,
      signal: controller.signal,
      logger: makeLogger(p.name),
      storage: ctx.storage,
      secrets: ctx.secrets,
      progress: {
        report: (update) => {
          const body = typeof update === "object" && update !== null ? update : { message: String(update) };
          notify("progress", {
            toolCallId,
            tool: p.name,
            message: body.message === undefined ? undefined : String(body.message),
            percent: typeof body.percent === "number" ? body.percent : undefined,
            increment: typeof body.increment === "number" ? body.increment : undefined,
            total: typeof body.total === "number" ? body.total : undefined,
          });
        },
      },
      ui: {
        requestForm: (form) => request("ui.form", { ...prompt(form), toolCallId }),
        confirm: (options) => request("ui.confirm", { ...prompt(options), toolCallId }),
      },
    };
    try {
      return await def.execute(p.input ?? {}, exec);
    } finally {
      calls.delete(id);
    }
  },

  "$/cancel"(p) {
    const controller = calls.get(p.id);
    if (controller) controller.abort(new Error(p.reason ?? "cancelled by the finch host"));
  },

  async "capability.invoke"(p) {
    const impl = provided.get(p.name);
    if (!impl) throw new Error(`capability "${p.name}" is no longer provided`);
    const fn = impl[p.method];
    if (typeof fn !== "function") throw new Error(`capability "${p.name}" has no method ${p.method}`);
    return fn.apply(impl, Array.isArray(p.args) ? p.args : []);
  },

  async discover(p) {
    const results = [];
    for (const provider of discoveryProviders) {
      try {
        const found = await runDiscovery(provider, p.query, { limit: p.limit });
        for (const item of Array.isArray(found) ? found : []) {
          if (typeof item === "string") results.push({ name: item });
          else if (item && typeof item.name === "string") {
            results.push({
              name: item.name,
              title: item.title,
              description: item.description,
              score: typeof item.score === "number" ? item.score : undefined,
            });
          }
        }
      } catch (err) {
        logLine("error", `discovery provider failed: ${err && err.stack ? err.stack : err}`);
      }
    }
    return results;
  },

  async deactivate() {
    for (const controller of calls.values()) controller.abort(new Error("the finch host is shutting down"));
    let failure = null;
    try {
      if (entry && typeof entry.deactivate === "function") await entry.deactivate();
    } catch (err) {
      failure = err;
    }
    const subscriptions = ctx ? ctx.subscriptions.splice(0).reverse() : [];
    for (const subscription of subscriptions) {
      try {
        if (subscription && typeof subscription.dispose === "function") await subscription.dispose();
        else if (typeof subscription === "function") await subscription();
      } catch (err) {
        logLine("error", `disposing a subscription failed: ${err && err.stack ? err.stack : err}`);
      }
    }
    if (failure) throw failure;
    return null;
  },
};
