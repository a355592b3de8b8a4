// Types for the `ctx` a Finch mini tool's `activate(ctx)` receives. Written by `finch new` from
// the published mini tool contract; only the parts a tool author needs first are spelled out,
// and everything else is still there at run time (`[member: string]: unknown`).
// Types only: nothing here exists at run time, and esbuild drops the `import type` lines.

/** Something to release when the mini tool stops: push it to `ctx.subscriptions`. */
export interface Disposable {
  dispose(): void;
}

/** A JSON Schema object describing a tool's arguments. */
export type JsonSchema = { type: "object"; [keyword: string]: unknown };

/** One content block of a tool result, as MCP shapes it. */
export type ContentBlock =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string };

/** What a tool's `execute` returns: MCP's tool result (a plain value is shown as JSON). */
export interface ToolResult {
  content: ContentBlock[];
  /** Machine-readable result beside the text, for callers that read JSON. */
  structuredContent?: Record<string, unknown>;
  /** The call failed; the model reads `content` as the error. */
  isError?: boolean;
}

export interface Logger {
  debug(message: string, ...args: unknown[]): void;
  info(message: string, ...args: unknown[]): void;
  warn(message: string, ...args: unknown[]): void;
  error(message: string, ...args: unknown[]): void;
}

/** Per-call context: the call's id, its session, its working directory, its cancellation. */
export interface ToolExecutionContext {
  readonly toolCallId: string;
  readonly sessionId: string;
  readonly cwd: string | undefined;
  /** Aborted when the caller cancels the call or it times out. */
  readonly signal?: AbortSignal;
  readonly logger: Logger;
  [member: string]: unknown;
}

/** A tool the agent can call. `name` is unique within this mini tool. */
export interface ToolDefinition<Input = Record<string, unknown>> {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema;
  execute(input: Input, exec: ToolExecutionContext): Promise<ToolResult | unknown> | ToolResult | unknown;
}

/** The mini tool's private key/value store, kept between runs. Every method is async. */
export interface Storage {
  get<T = unknown>(key: string, fallback?: T): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<boolean>;
  keys(): Promise<string[]>;
  clear(): Promise<void>;
}

export interface ConfirmDialogOptions {
  title: string;
  message?: string;
  confirmLabel?: string;
  cancelLabel?: string;
}

export interface MiniToolInfo {
  readonly id: string;
  readonly displayName: string;
  readonly version: string;
  [member: string]: unknown;
}

/** What `activate` receives: the one door to everything the host offers. */
export interface MiniToolContext {
  /** Disposables released when the mini tool stops. */
  readonly subscriptions: { dispose(): unknown }[];
  readonly minitool: MiniToolInfo;
  /** A directory of the mini tool's own, created for it. */
  readonly storagePath: string;
  readonly tools: {
    register<Input = Record<string, unknown>>(definition: ToolDefinition<Input>): Disposable;
  };
  readonly storage: Storage;
  readonly logger: Logger;
  readonly settings: {
    get<T = unknown>(key: string, fallback?: T): T | undefined;
    all(): Record<string, unknown>;
  };
  /** Read access to the secrets `permissions.secrets` declares. */
  readonly secrets: { get(key: string): Promise<string | undefined> };
  readonly capabilities: {
    has(name: string): boolean;
    get<T = Record<string, (...args: unknown[]) => Promise<unknown>>>(name: string): T;
  };
  readonly ui: {
    showConfirmDialog(options: ConfirmDialogOptions): Promise<{ confirmed: boolean; reason?: string }>;
    showMessage(message: string, type?: "info" | "warning" | "error"): void;
    [member: string]: unknown;
  };
  [member: string]: unknown;
}
