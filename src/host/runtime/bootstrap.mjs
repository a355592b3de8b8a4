// The finch mini tool bootstrap (SPEC §9.1): runs ONE mini tool inside this node process and
// speaks JSON-RPC 2.0, one JSON document per line, with the finch host over file descriptor 3 —
// a socket the host passed in. The mini tool's own console.*, stdout and stderr go to its log
// file (the host opened it as this process's stdout and stderr), so nothing it prints can reach
// the channel. This file ships inside the finch binary; it must never import anything outside
// node's standard library, and must never let a mini tool's mistake throw out of a handler.
//
// The method names of both directions are the host's (src/host/runtime/protocol.rs): it writes
// them into M below when it writes this file for node, with the table of ctx members a headless
// host cannot honour (src/minitool/headless.rs). This file never spells a method name itself.
//
// A mini tool's floating rejection or uncaught exception is logged and the process goes on
// (SPEC §9.1): one bad timer must not take its tools away.

import { AsyncLocalStorage } from "node:async_hooks";
import net from "node:net";
import { dirname } from "node:path";
import { pathToFileURL } from "node:url";
import { format } from "node:util";

// The global, taken before the mini tool's code runs (which could replace globalThis.process).
// Not imported: the same object, and importing node:process costs ~2 ms of CPU per start.
const process = globalThis.process;

// A mini tool with a host list (issue 42) runs in a network namespace whose only way out is
// finch's proxy; the host says where it listens (FINCH_PROXY). node 20 ignores the proxy
// variables, so http's and https's global agents tunnel through it (CONNECT), and fetch is
// served by them. What the proxy refuses fails with its words (the declaration and the grant
// command). A program that goes around (a raw net.connect) reaches nothing: there is no route.
if (process.env.FINCH_PROXY) await routeThroughProxy(process.env.FINCH_PROXY);

async function routeThroughProxy(proxy) {
  const [http, https, tls, { Readable }] = (await Promise.all([
    import("node:http"), import("node:https"), import("node:tls"), import("node:stream"),
  ])).map((m) => m.default);
  const at = new URL(proxy);
  const authority = (host, port) => `${net.isIPv6(host) ? `[${host}]` : host}:${port}`;
  // A socket to host:port through the proxy, or the proxy's refusal as an error.
  function tunnel(host, port, done) {
    const sock = net.connect({ host: at.hostname, port: Number(at.port) });
    let buf = Buffer.alloc(0);
    let settled = false;
    const settle = (err, s) => { if (!settled) { settled = true; done(err, s); } };
    const fail = (err) => { sock.destroy(); settle(err); };
    sock.once("error", fail);
    sock.once("connect", () => {
      const a = authority(host, port);
      sock.write(`CONNECT ${a} HTTP/1.1\r\nHost: ${a}\r\n\r\n`);
    });
    const onData = (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      const end = buf.indexOf("\r\n\r\n");
      if (end < 0) {
        if (buf.length > 65536) fail(new Error("finch's proxy sent too long an answer"));
        return;
      }
      const head = buf.subarray(0, end).toString("latin1");
      const status = Number(head.split(" ")[1]);
      if (status === 200) {
        sock.removeListener("data", onData);
        sock.removeListener("error", fail);
        // Paused until the request has taken the socket (its listeners come a tick later):
        // what the other end sends first is kept, not dropped.
        sock.pause();
        const rest = buf.subarray(end + 4);
        if (rest.length) sock.unshift(rest);
        settle(null, sock);
        setImmediate(() => sock.resume());
        return;
      }
      const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
      const body = buf.subarray(end + 4);
      if (body.length < length) return;
      const err = new Error(body.subarray(0, length).toString("utf8").trim() || `finch's proxy answered ${status}`);
      err.code = "EFINCHPROXY";
      fail(err);
    };
    sock.on("data", onData);
    sock.once("end", () => fail(new Error("finch's proxy closed the connection")));
  }
  class ProxyAgent extends http.Agent {
    createConnection(options, done) {
      tunnel(options.host || "localhost", options.port || 80, done);
    }
  }
  class ProxyTlsAgent extends https.Agent {
    createConnection(options, done) {
      const host = options.host || "localhost";
      tunnel(host, options.port || 443, (err, sock) => {
        if (err) return done(err);
        const servername = options.servername || (net.isIP(host) ? undefined : host);
        done(null, tls.connect({ ...options, socket: sock, servername }));
      });
    }
  }
  http.globalAgent = new ProxyAgent();
  https.globalAgent = new ProxyTlsAgent();
  const agents = { "http:": [http, http.globalAgent], "https:": [https, https.globalAgent] };
  const nativeFetch = globalThis.fetch;
  globalThis.fetch = async function fetch(input, init) {
    let req = new Request(input, init);
    if (!agents[new URL(req.url).protocol]) return nativeFetch(input, init);
    let body = req.body ? Buffer.from(await req.arrayBuffer()) : undefined;
    for (let hop = 0; ; hop++) {
      const url = new URL(req.url);
      const [mod, agent] = agents[url.protocol] ?? [];
      if (!mod) throw new TypeError(`fetch failed: ${url.protocol} is not http or https`);
      const headers = {};
      req.headers.forEach((v, k) => { headers[k] = v; });
      if (body) headers["content-length"] = String(body.length);
      const res = await new Promise((resolve, reject) => {
        const r = mod.request(url, { method: req.method, headers, agent, signal: req.signal }, resolve);
        r.on("error", (e) => reject(new TypeError(`fetch failed: ${e.message}`, { cause: e })));
        r.end(body);
      });
      const location = res.headers.location;
      if ([301, 302, 303, 307, 308].includes(res.statusCode) && location && req.redirect !== "manual") {
        res.resume();
        if (req.redirect === "error") throw new TypeError("fetch failed: redirect");
        if (hop >= 20) throw new TypeError("fetch failed: too many redirects");
        const next = new URL(location, url).href;
        const get = res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && req.method === "POST");
        if (get) body = undefined;
        req = new Request(next, { method: get ? "GET" : req.method, headers: req.headers, signal: req.signal, redirect: req.redirect });
        continue;
      }
      const out = new Headers();
      for (const [k, v] of Object.entries(res.headers)) {
        for (const one of Array.isArray(v) ? v : [v]) if (one != null) out.append(k, one);
      }
      const empty = req.method === "HEAD" || [101, 204, 205, 304].includes(res.statusCode);
      if (empty) res.resume();
      const response = new Response(empty ? null : Readable.toWeb(res), {
        status: res.statusCode, statusText: res.statusMessage, headers: out,
      });
      Object.defineProperty(response, "url", { value: req.url });
      Object.defineProperty(response, "redirected", { value: hop > 0 });
      return response;
    }
  };
}

// The method names, from the host: {host, push, request, notify}, each key → wire name. A key
// the host did not give is a mistake in this file, and throws at once rather than sending
// `undefined` as a method.
const M = guard(/*finch:methods*/null, "M");

function guard(table, path) {
  return new Proxy(table, {
    get(target, prop) {
      if (typeof prop === "symbol") return undefined;
      if (!Object.prototype.hasOwnProperty.call(target, prop)) throw new Error(`finch bootstrap: ${path}.${String(prop)} is not a method the host knows`);
      const value = target[prop];
      return typeof value === "object" && value !== null ? guard(value, `${path}.${String(prop)}`) : value;
    },
  });
}

const RPC_FD = 3;
const channel = new net.Socket({ fd: RPC_FD, readable: true, writable: true });
channel.setEncoding("utf8");
// The host went away (ended, crashed, or was killed): so does this mini tool.
channel.on("end", () => process.exit(0));
channel.on("close", () => process.exit(0));
channel.on("error", () => process.exit(0));
process.on("unhandledRejection", (reason) => {
  logLine("error", `unhandled rejection (the mini tool keeps running): ${reason && reason.stack ? reason.stack : safeJson(reason)}`);
});
process.on("uncaughtException", (err) => {
  logLine("error", `uncaught exception (the mini tool keeps running): ${err && err.stack ? err.stack : safeJson(err)}`);
});

// The call whose `execute` (and whatever it awaits) is running: a dialog asked through ctx.ui
// names it, so the host asks it of that call's person, whichever calls run side by side. In
// node 20 an AsyncLocalStorage in use costs every promise of the process a hook, so it is used
// only while calls overlap: a call that starts while none runs runs outside it (`alone`), and a
// dialog asked outside every call's context while it runs is that call's — as the host would
// route it anyway (to a call running now). When the last call ends, it is switched off again.
const currentCall = new AsyncLocalStorage();
let alone = null;

function callExtra() {
  const call = currentCall.getStore() ?? alone;
  return call ? { toolCallId: call.toolCallId } : {};
}

let nextId = 1;
const pending = new Map();
const calls = new Map();
const tools = new Map();
const provided = new Map();
const discoveryProviders = new Set();
let entry = null;
let ctx = null;
let activating = null;
// What `ctx.settingsMenu.register` gave: `finch minitool menu` asks it (`settingsMenu`).
let settingsMenu = null;

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

// An error's message with its causes (undici's `fetch failed` says what failed only in
// `cause`: `connect EPERM 127.0.0.1:80`), so the host can name what the kernel refused.
function withCauses(err) {
  let text = err.message || String(err);
  let cause = err.cause;
  for (let depth = 0; cause && depth < 4; depth++, cause = cause.cause) {
    const said = cause instanceof Error ? `${cause.code ? cause.code + " " : ""}${cause.message}` : String(cause);
    if (said && !text.includes(said)) text += ` (cause: ${said})`;
  }
  return text;
}

function toRpcError(err) {
  if (err instanceof Error) {
    return { code: -32000, message: withCauses(err), data: { name: err.name, stack: err.stack } };
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
      settle(
        () => handler(params),
        () => {},
        (err) => logLine("error", `${message.method}: ${err && err.stack ? err.stack : err}`),
      );
    }
    return;
  }
  if (!handler) {
    send({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: `unknown method ${message.method}` } });
    return;
  }
  settle(
    () => handler(params, message.id),
    (result) => reply(message.id, result),
    (err) => send({ jsonrpc: "2.0", id: message.id, error: toRpcError(err) }),
  );
}

// Runs a handler now, in the order the messages came, and hands on what it settles to: its
// value, its promise's outcome, or what it threw. (Not deferred to a microtask first: that
// costs every call two turns of the queue and changes no order.)
function settle(run, done, failed) {
  let result;
  try {
    result = run();
  } catch (err) {
    failed(err);
    return;
  }
  if (result !== null && typeof result === "object" && typeof result.then === "function") result.then(done, failed);
  else done(result);
}

// The log file is this process's stderr; the logger writes dated, levelled lines to it.
function logLine(level, text) {
  process.stderr.write(`${new Date().toISOString()} [${level}] ${text}\n`);
}

// One running `execute`. Its `exec` argument's signal, logger, progress and ui are made when a
// tool first reads them: most tools read none, and an AbortController alone costs a call more
// than the rest of its trip through this file.
class Call {
  constructor(toolCallId, tool) {
    this.toolCallId = toolCallId;
    this.tool = tool;
    this.controller = null;
    this.reason = undefined;
    this.aborted = false;
  }

  get signal() {
    if (this.controller === null) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason) {
    if (this.controller !== null) this.controller.abort(reason);
    else if (!this.aborted) {
      this.aborted = true;
      this.reason = reason;
    }
  }

  exec(info) {
    const call = this;
    const { toolCallId, tool } = this;
    let logger, progress, ui;
    return {
      toolCallId,
      sessionId: info.sessionId,
      spaceId: info.spaceId ?? undefined,
      cwd: info.cwd,
      get signal() {
        return call.signal;
      },
      get logger() {
        return (logger ??= makeLogger(tool));
      },
      storage: ctx.storage,
      secrets: ctx.secrets,
      get progress() {
        return (progress ??= {
          report: (update) => {
            const body = typeof update === "object" && update !== null ? update : { message: String(update) };
            notify(M.notify.progress, {
              toolCallId,
              tool,
              message: body.message === undefined ? undefined : String(body.message),
              percent: typeof body.percent === "number" ? body.percent : undefined,
              increment: typeof body.increment === "number" ? body.increment : undefined,
              total: typeof body.total === "number" ? body.total : undefined,
            });
          },
        });
      },
      get ui() {
        return (ui ??= {
          requestForm(form) {
            const asked = request(M.request.uiForm, { ...prompt(form), toolCallId });
            const ms = form && typeof form.timeoutMs === "number" && form.timeoutMs > 0 ? form.timeoutMs : null;
            if (ms === null) return asked;
            let timer;
            const timedOut = new Promise((resolve) => {
              timer = setTimeout(() => resolve({ submitted: false, values: {}, reason: "timeout" }), ms);
            });
            return Promise.race([asked, timedOut]).finally(() => clearTimeout(timer));
          },
        });
      },
    };
  }
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

function makeStorage() {
  return {
    get: (key, fallback) =>
      request(M.request.storageGet, { key: String(key) }).then((r) => (r && r.found ? r.value : fallback)),
    set: (key, value) =>
      value === undefined
        ? request(M.request.storageDelete, { key: String(key) }).then(() => undefined)
        : request(M.request.storageSet, { key: String(key), value }).then(() => undefined),
    update: (key, value) => ctx.storage.set(key, value),
    delete: (key) => request(M.request.storageDelete, { key: String(key) }).then((r) => Boolean(r && r.deleted)),
    clear: () => request(M.request.storageClear, {}).then(() => undefined),
    keys: () => request(M.request.storageKeys, {}),
  };
}

function makeSecrets() {
  return {
    get: (key) => request(M.request.secretsGet, { key: String(key) }).then((r) => (r && r.value != null ? r.value : undefined)),
    set: (key, value) => {
      if (typeof value !== "string") return Promise.reject(new TypeError("secrets.set: the value must be a string"));
      return request(M.request.secretsSet, { key: String(key), value }).then(() => undefined);
    },
    delete: (key) => request(M.request.secretsDelete, { key: String(key) }).then((r) => Boolean(r && r.deleted)),
  };
}

// The ctx members this headless host cannot honour, by what it does with them: "records" are
// accepted, recorded and listed as contributions finch cannot show; "rejects" return a promise
// that rejects with a clear error. The host fills it in (the same table `finch doctor` warns
// from), so the two cannot drift.
const HEADLESS = /*finch:headless*/null;
const RECORDED = new Set(HEADLESS.records.map((r) => r.member));

// A contribution finch cannot show: recorded by the host and listed by the start report
// (`finch reload`, `finch run --minitool`).
function record(member, detail) {
  if (!RECORDED.has(member) && !member.startsWith("ui.")) logLine("warn", `finch: ${member} is recorded but missing from the host's headless table`);
  notify(M.notify.uiUnsupported, { kind: member, detail: describe(detail) });
}

function cannot(member, why) {
  return Promise.reject(new Error(`ctx.${member}: ${why}`));
}

const NO_APP = "finch is a headless host: there is no Finch app window to do this in";

function updatable(member, detail) {
  record(member, detail);
  const d = disposable(() => {});
  return Object.assign(d, { notifyUpdate() {} });
}

// Listeners of an event the host pushes; a listener that throws is logged, never propagated.
// With `stream`, the host pushes it only while someone listens: the first listener and the
// last one gone are told to it (`events.listen`), so a call costs no message to mini tools
// that do not care.
function emitter(name, stream) {
  const listeners = new Set();
  const on = (listener, thisArgs, disposables) => {
    if (typeof listener !== "function") throw new TypeError(`${name} needs a listener function`);
    const entry = { listener, thisArgs };
    listeners.add(entry);
    if (stream && listeners.size === 1) notify(M.notify.eventsListen, { stream, on: true });
    const d = disposable(() => {
      if (listeners.delete(entry) && stream && listeners.size === 0) {
        notify(M.notify.eventsListen, { stream, on: false });
      }
    });
    if (Array.isArray(disposables)) disposables.push(d);
    return d;
  };
  // The promises the listeners returned, each settled (a failure logged), for whoever waits
  // until they are done (a durable session event is acknowledged then).
  const fire = (value) => {
    const running = [];
    for (const { listener, thisArgs } of [...listeners]) {
      try {
        const r = listener.call(thisArgs, value);
        if (r && typeof r.then === "function") {
          running.push(r.then(undefined, (err) => logLine("error", `${name} listener failed: ${err && err.stack ? err.stack : err}`)));
        }
      } catch (err) {
        logLine("error", `${name} listener failed: ${err && err.stack ? err.stack : err}`);
      }
    }
    return running;
  };
  return { on, fire };
}

const agentEvents = emitter("events.onAgentEvent", "agentEvents");
const statusEvents = emitter("status.onDidChange", "status");
const notificationEvents = emitter("notifications.onDidPost");
const sessionEvents = emitter("sessions.onDidReceiveEvent");
const localeEvents = emitter("i18n.onDidChangeLocale");
const capabilityState = { available: new Map() };

function panelHandle(options) {
  const id = `finch-headless-panel-${nextId++}`;
  const payload = options && typeof options.payload === "object" && options.payload !== null ? options.payload : {};
  record("ui.createPanel", payload.id ?? null);
  return {
    id,
    sessionId: undefined,
    view: undefined,
    payload: options ? options.payload : undefined,
    visible: false,
    reveal: () => Promise.resolve(),
    postMessage: () => Promise.resolve(),
    onDidReceiveMessage: () => disposable(() => {}),
    onDidChangeVisibility: () => disposable(() => {}),
    onDidDispose: () => disposable(() => {}),
    dispose() {},
  };
}

function canvasHandle(options) {
  const id = `finch-headless-canvas-${nextId++}`;
  record("ui.createCanvasWindow", { id: options && options.entry ? options.entry : id });
  const ready = Promise.reject(new Error(`ctx.ui.createCanvasWindow: ${NO_APP}; the window is never shown`));
  // Only a caller that awaits `ready` sees the rejection; it is not a floating one.
  ready.catch(() => {});
  const event = () => disposable(() => {});
  return {
    id,
    ready,
    state: "disposed",
    visible: false,
    show() {},
    hide() {},
    setAlwaysOnTop() {},
    setPosition() {},
    setSize() {},
    setClickThrough() {},
    update: () => Promise.resolve(),
    startMotion() {},
    stopMotion() {},
    postMessage: () => Promise.resolve(),
    onDidReceiveMessage: event,
    onDidMove: event,
    onDidResize: event,
    onDidChangeVisibility: event,
    onDidChangeState: event,
    dispose() {},
    onDidDispose: event,
  };
}

function makeUi(limits) {
  const toast = (kind, body) => notify(M.notify.uiNotify, { kind, ...body });
  const known = {
    // Newer than the published finch.d.ts (finch-wechat-preview uses it).
    openDiff: (options) => openDiff(options, limits.diffSideMax),
    openFilePreview(path) {
      record("ui.openFilePreview", path);
      return Promise.resolve();
    },
    createPanel: (options) => panelHandle(options),
    onDidOpenPanel(listener) {
      record("ui.onDidOpenPanel", null);
      return disposable(() => {});
    },
    createCanvasWindow: (options) => canvasHandle(options),
    showToast(options) {
      const o = typeof options === "object" && options !== null ? options : { title: String(options) };
      const title = o.title === undefined ? "" : String(o.title);
      const level = o.variant === "default" ? undefined : o.variant;
      if (o.description === undefined || o.description === "") toast("toast", { message: title, level });
      else toast("toast", { title, message: String(o.description), level });
      return Promise.resolve({ action: "dismissed" });
    },
    showConfirmDialog: (options) => request(M.request.uiConfirm, { ...prompt(options), ...callExtra() }),
    showModalDialog(options) {
      // close(action) settles the handle as if that action was chosen, and tells the host
      // (`ui.close`): `finch minitool menu` takes the dialog off the terminal; elsewhere a
      // question already asked stays until answered, and its answer is then dropped.
      let closeWith;
      const closed = new Promise((resolve) => (closeWith = resolve));
      const dialogId = `dialog_${nextId++}`;
      const handle = Promise.race([request(M.request.uiModal, { ...prompt(options), dialogId, ...callExtra() }), closed]);
      return Object.assign(handle, {
        close(action) {
          closeWith({ action: action === undefined ? "dismissed" : String(action) });
          notify(M.notify.uiClose, { dialogId });
          return Promise.resolve();
        },
      });
    },
    notify: (message, type) => toast("notify", noticeBody(message, type)),
    showMessage: (message, type) => toast("notify", noticeBody(message, type)),
    delivery: Object.freeze({
      set(options) {
        record("ui.delivery", options && options.title);
        return Promise.resolve();
      },
      remove: () => Promise.resolve(),
    }),
    // Older names some packages still call.
    toast: (message, options) => toast("toast", noticeBody(message, options)),
    showInformationMessage: (message) => toast("notify", noticeBody(message, "info")),
    showWarningMessage: (message) => toast("notify", noticeBody(message, "warning")),
    showErrorMessage: (message) => toast("notify", noticeBody(message, "error")),
  };
  // Any other name (an older API, a newer one) is accepted and recorded, never thrown: the same
  // mini tool runs in the app. Its result is a disposable, so a registration works; awaited as
  // an answer, it rejects — a question finch does not know must never look answered.
  return new Proxy(known, {
    get(target, prop) {
      if (prop in target) return target[prop];
      if (typeof prop === "symbol" || prop === "then" || prop === "toJSON") return undefined;
      const name = `ui.${String(prop)}`;
      return (...args) => {
        record(name, args[0]);
        return Object.assign(disposable(() => {}), {
          then(_resolve, reject) {
            const err = new Error(`ctx.${name} is not part of finch.d.ts: finch recorded the call and has no answer for it`);
            return typeof reject === "function" ? reject(err) : Promise.reject(err);
          },
        });
      };
    },
  });
}

// ctx.ui.openDiff({type: "files", leftPath, rightPath, title}): this process reads both files —
// the host never reads a path for a mini tool — and the host shows the person a unified diff of
// them (the terminal, the call's result for an MCP client, else the mini tool's log). Resolves
// once it was shown or recorded, as the app's resolves once its diff opened.
async function openDiff(options, max) {
  const extra = callExtra();
  const o = typeof options === "object" && options !== null ? options : {};
  const type = o.type === undefined ? "files" : o.type;
  if (type !== "files") {
    throw new TypeError(`ctx.ui.openDiff: type ${safeJson(type)} is not one finch shows (it shows {type: "files", leftPath, rightPath})`);
  }
  const fs = await import("node:fs/promises");
  const side = async (key) => {
    const path = o[key];
    if (typeof path !== "string" || path === "") throw new TypeError(`ctx.ui.openDiff: ${key} must be a non-empty path`);
    const { size } = await fs.stat(path);
    return { path, size, text: size <= max ? await fs.readFile(path, "utf8") : null };
  };
  const [left, right] = await Promise.all([side("leftPath"), side("rightPath")]);
  const title = o.title === undefined || o.title === null ? undefined : String(o.title);
  await request(M.request.uiOpenDiff, { title, left, right, ...extra });
}

// `notify(message, type)`, and the older `(message, {level})` / `({title, message, level})`.
function noticeBody(message, type) {
  const options = typeof type === "string" ? { level: type } : type ?? {};
  const body = typeof message === "object" && message !== null ? message : { message: String(message), ...options };
  return { message: String(body.message ?? body.title ?? ""), title: body.message === undefined ? undefined : body.title, level: body.level ?? body.type ?? body.variant };
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

function capabilityProxy(name) {
  return new Proxy(Object.freeze({}), {
    get(_target, method) {
      // Not a thenable, so `await ctx.capabilities.get(...)` gives the proxy itself.
      if (typeof method === "symbol" || method === "then" || method === "toJSON") return undefined;
      return (...args) => request(M.request.capabilitiesInvoke, { name, method, args });
    },
  });
}

function makeCapabilities(p) {
  const provides = new Set(p.capabilities?.provides ?? []);
  const requires = new Set(p.capabilities?.requires ?? []);
  capabilityState.available = new Map((p.capabilities?.available ?? []).map((name) => [name, true]));
  return {
    provide(name, impl, options) {
      if (typeof name !== "string" || name === "") throw new TypeError("capabilities.provide needs a capability name");
      if (!provides.has(name)) {
        throw new Error(`capabilities.provide("${name}"): declare it in the manifest's provides.capabilities first`);
      }
      if (!impl || (typeof impl !== "object" && typeof impl !== "function")) {
        throw new TypeError(`capabilities.provide("${name}") needs an object of methods`);
      }
      provided.set(name, impl);
      const version = options && typeof options.version === "string" ? options.version : undefined;
      track(request(M.request.capabilitiesProvide, { name, methods: methodNames(impl), version }), `capabilities.provide(${name})`);
      return disposable(() => {
        if (provided.get(name) === impl) {
          provided.delete(name);
          notify(M.notify.capabilitiesRevoke, { name });
        }
      });
    },
    get(name) {
      if (!requires.has(name)) {
        throw new Error(`capabilities.get("${name}"): declare it in the manifest's requires.capabilities first`);
      }
      return capabilityProxy(name);
    },
    has: (name) => requires.has(name) && capabilityState.available.has(name),
    getVersion: (name) =>
      requires.has(name)
        ? request(M.request.capabilitiesGetVersion, { name }).then((v) => (typeof v === "string" ? v : undefined))
        : Promise.resolve(undefined),
  };
}

function makeSessions() {
  const ask = (method, params) => request(method, params);
  return {
    create: (options) => ask(M.request.sessionsCreate, { options: options ?? {} }),
    get: (sessionId) => ask(M.request.sessionsGet, { sessionId }).then((r) => r ?? undefined),
    list: (options) => ask(M.request.sessionsList, { options: options ?? {} }),
    send: (sessionId, message, options) => ask(M.request.sessionsSend, { sessionId, message, options: options ?? {} }),
    waitForTurn: (sessionId, turnId, options) => ask(M.request.sessionsWaitForTurn, { sessionId, turnId, options: options ?? {} }),
    onDidReceiveEvent: (listener, thisArgs, disposables) => sessionEvents.on(listener, thisArgs, disposables),
    listEvents: (options) => ask(M.request.sessionsListEvents, { options: options ?? {} }),
    listWaits: (sessionId) => ask(M.request.sessionsListWaits, { sessionId }),
    respondToWait: (sessionId, requestId, response) => ask(M.request.sessionsRespondToWait, { sessionId, requestId, response }),
    waitForWait: (sessionId, options) => ask(M.request.sessionsWaitForWait, { sessionId, options: options ?? {} }).then((r) => r ?? undefined),
  };
}

function makeCtx(p) {
  const info = Object.freeze({ ...p.minitool });
  const settings = { ...(p.settings ?? {}) };
  const messages = flatten(p.i18n?.messages);
  const contributions = p.contributions ?? {};
  const list = {
    listContributions: (point) => (contributions[String(point)] ?? []).map((c) => ({ ...c })),
    list: () => request(M.request.minitoolsList, {}),
  };
  const oauthRejects = (method) => () => cannot(`oauth.${method}`, `${NO_APP}; use ctx.secrets with a key the user provides instead`);
  return {
    subscriptions: [],
    minitool: info,
    extension: info,
    storagePath: p.storagePath,
    tools: {
      register: (def) => registerTool(def),
      registerDiscoveryProvider: (provider) => registerDiscovery(provider),
      registerSearchProvider: (provider) => registerDiscovery(provider),
    },
    composerActions: {
      register: (actionId, provider) => updatable("composerActions.register", actionId),
    },
    commands: undefined,
    navigation: {
      openSession: () => cannot("navigation.openSession", NO_APP),
    },
    browser: {
      open: () => cannot("browser.open", `${NO_APP} (no browser panel)`),
    },
    ui: makeUi({ diffSideMax: p.limits?.diffSide ?? 0 }),
    capabilities: makeCapabilities(p),
    icons: {
      register(packId) {
        record("icons.register", packId);
        return disposable(() => {});
      },
    },
    minitools: list,
    extensions: list,
    events: {
      onAgentEvent: (listener, thisArgs, disposables) => agentEvents.on(listener, thisArgs, disposables),
      // Newer than the published finch.d.ts (finch-chan uses it): finch has no app waits to send.
      onInteractionWait(listener) {
        record("events.onInteractionWait", null);
        return disposable(() => {});
      },
    },
    status: {
      get: () => request(M.request.statusGet, {}),
      onDidChange: (listener, thisArgs, disposables) => statusEvents.on(listener, thisArgs, disposables),
    },
    notifications: {
      onDidPost: (listener, thisArgs, disposables) => notificationEvents.on(listener, thisArgs, disposables),
    },
    i18n: {
      locale: p.i18n?.locale ?? "en-US",
      has: (key) => Object.prototype.hasOwnProperty.call(messages, key),
      t: (key, params) => {
        const text = Object.prototype.hasOwnProperty.call(messages, key) ? messages[key] : String(key);
        return text.replace(/\{\{?\s*([\w.-]+)\s*\}?\}/g, (whole, name) =>
          params && params[name] !== undefined && params[name] !== null ? String(params[name]) : whole,
        );
      },
      onDidChangeLocale: (listener, thisArgs, disposables) => localeEvents.on(listener, thisArgs, disposables),
    },
    storage: makeStorage(),
    settings: {
      get: (key, fallback) => (Object.prototype.hasOwnProperty.call(settings, key) ? settings[key] : fallback),
      all: () => ({ ...settings }),
      onDidChange: () => disposable(() => {}),
    },
    logger: makeLogger(""),
    secrets: makeSecrets(),
    oauth: {
      connect: oauthRejects("connect"),
      initiateAuthorization: oauthRejects("initiateAuthorization"),
      authorize: oauthRejects("authorize"),
      getStatus: oauthRejects("getStatus"),
      disconnect: oauthRejects("disconnect"),
      request: oauthRejects("request"),
    },
    app: {
      getInfo: () =>
        Promise.resolve({ ...p.app, platform: process.platform, arch: process.arch, nodeVersion: process.version }),
    },
    session: p.session ?? null,
    sessions: makeSessions(),
    // Newer than the published finch.d.ts (finch-skin-studio uses it): the app's own
    // appearance settings, which the host reads and writes in the app's settings file.
    appearance: {
      get: () => request(M.request.appearanceGet, {}),
      setTheme: (options) => request(M.request.appearanceSetTheme, { options: options ?? {} }).then(() => undefined),
      setHomeBackground: (options) =>
        request(M.request.appearanceSetHomeBackground, { options: options ?? {} }).then(() => undefined),
    },
    spaces: {
      list: () => request(M.request.spacesList, {}),
    },
    sessionContainers: {
      registerSettingsMenu: (containerId) => updatable("sessionContainers.registerSettingsMenu", containerId),
    },
    settingsMenu: {
      register(provider) {
        if (provider && typeof provider.getMenu === "function" && typeof provider.execute === "function") {
          settingsMenu = provider;
        }
        return updatable("settingsMenu.register", null);
      },
    },
    workspace: p.workspace ?? null,
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
  const registered = request(M.request.toolsRegister, wire).catch((err) => {
    if (tools.get(name) === def) tools.delete(name);
    throw new Error(`tools.register("${name}"): ${err.message}`);
  });
  track(registered, `tools.register(${name})`);
  return disposable(() => {
    if (tools.get(name) === def) {
      tools.delete(name);
      notify(M.notify.toolsUnregister, { name });
    }
  });
}

function registerDiscovery(provider) {
  const ok = typeof provider === "function" || (provider && ["discover", "search", "provide"].some((m) => typeof provider[m] === "function"));
  if (!ok) throw new TypeError("a discovery provider is a function (query) => results, or an object with discover(query)");
  discoveryProviders.add(provider);
  notify(M.notify.toolsDiscovery, { count: discoveryProviders.size });
  return disposable(() => {
    discoveryProviders.delete(provider);
    notify(M.notify.toolsDiscovery, { count: discoveryProviders.size });
  });
}

// finch.d.ts's ToolSearchProvider is `{id, search(query: {query, limit}, ctx)}` answering
// `{toolName, title?, description?}`; a bare function or `discover(query)` gets the text.
async function runDiscovery(provider, query, options) {
  if (typeof provider === "function") return provider(query, options);
  if (typeof provider.search === "function") {
    const found = await provider.search({ query, limit: options.limit }, { sessionId: ctx.session?.id, cwd: ctx.session?.cwd });
    return (Array.isArray(found) ? found : []).map((item) =>
      item && typeof item === "object" && item.name === undefined && typeof item.toolName === "string" ? { ...item, name: item.toolName } : item,
    );
  }
  for (const method of ["discover", "provide"]) {
    if (typeof provider[method] === "function") return provider[method](query, options);
  }
  return [];
}

const handlers = {
  async [M.host.activate](p) {
    // Bundles made for the app read `__dirname`/`__filename` even as ES modules (the public
    // finch-feishu-bot does, to find the files it ships beside its bundle); each mini tool has
    // a process of its own, so they are globals naming its entry, unless something set them.
    for (const [name, value] of [["__filename", p.entryPath], ["__dirname", dirname(p.entryPath)]]) {
      if (!(name in globalThis)) Object.defineProperty(globalThis, name, { value, writable: true, configurable: true });
    }
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

  async [M.host.execute](p, id) {
    const def = tools.get(p.name);
    if (!def) throw new Error(`no tool named "${p.name}" is registered`);
    // The host sends the session and workspace when they changed since its last call here.
    if (p.session) {
      ctx.session = p.session;
      if (p.workspace) ctx.workspace = p.workspace;
    }
    const info = p.exec ?? {};
    const call = new Call(info.toolCallId, p.name);
    const overlaps = calls.size > 0;
    calls.set(id, call);
    if (!overlaps) alone = call;
    try {
      const exec = call.exec(info);
      if (!overlaps) return await def.execute(p.input ?? {}, exec);
      return await currentCall.run(call, () => def.execute(p.input ?? {}, exec));
    } finally {
      calls.delete(id);
      if (alone === call) alone = null;
      if (calls.size === 0) currentCall.disable();
    }
  },

  // The menu's items, or one item run, as part of the host's menu run `toolCallId`: the
  // dialogs it opens go to that run's person.
  async [M.host.settingsMenu](p) {
    if (!settingsMenu) throw new Error("it registers no settings menu (ctx.settingsMenu.register)");
    const menuCtx = { cwd: ctx.workspace?.cwd ?? undefined, minitoolId: p.minitoolId, surface: "toolcase" };
    const run = p.item == null ? () => settingsMenu.getMenu(menuCtx) : () => settingsMenu.execute(menuCtx, p.item);
    const call = { toolCallId: p.toolCallId };
    const before = alone;
    alone = call;
    try {
      return (await currentCall.run(call, run)) ?? null;
    } finally {
      if (alone === call) alone = before;
    }
  },

  [M.push.capabilities](p) {
    capabilityState.available = new Map((p.available ?? []).map((name) => [name, true]));
  },

  [M.push.agentEvent](p) {
    agentEvents.fire(Object.freeze({ ...p }));
  },

  [M.push.status](p) {
    statusEvents.fire(Object.freeze({ ...p }));
  },

  [M.push.notification](p) {
    notificationEvents.fire(Object.freeze({ ...p }));
  },

  // A durable event (it has a sequence) is acknowledged once its listeners are done, so the
  // host removes it from the outbox; `assistant.delta` is live only.
  [M.push.sessionEvent](p) {
    const running = sessionEvents.fire(Object.freeze({ ...p }));
    if (typeof p.sequence === "number") {
      Promise.all(running).then(() => notify(M.notify.sessionsAck, { sessionId: p.sessionId, sequence: p.sequence }));
    }
  },

  [M.push.cancel](p) {
    const call = calls.get(p.id);
    if (call) call.abort(new Error(p.reason ?? "cancelled by the finch host"));
  },

  async [M.host.capabilityInvoke](p) {
    const impl = provided.get(p.name);
    if (!impl) throw new Error(`capability "${p.name}" is no longer provided`);
    const fn = impl[p.method];
    if (typeof fn !== "function") throw new Error(`capability "${p.name}" has no method ${p.method}`);
    return fn.apply(impl, Array.isArray(p.args) ? p.args : []);
  },

  async [M.host.discover](p) {
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

  async [M.host.deactivate]() {
    for (const call of calls.values()) call.abort(new Error("the finch host is shutting down"));
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
