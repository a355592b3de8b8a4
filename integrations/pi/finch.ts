/**
 * finch's permission gate for pi (the agent core, @mariozechner/pi-coding-agent).
 *
 * Every call of one of pi's built-in tools (read, bash, edit, write, grep, find, ls) is judged by
 * finch's permission gateway before it runs: `finch policy check --agent pi <tool> <json>
 * --mode <mode> --session <transcript> --json`.
 *   - allow: the call runs;
 *   - deny:  the call is blocked, with finch's reason;
 *   - ask:   pi's confirm UI asks the person (Allow once / Allow for this session / Deny) when
 *            pi has one (interactive and RPC modes); without one (`pi -p`, `--mode json`) the
 *            call is blocked, with finch's reason.
 * A `bash` call finch lets through without a card (the acceptCalls fast lane, `sandbox`
 * `read-only` in the verdict) runs inside finch's kernel wall: the extension asks with
 * `--confine` and rewrites the command (event.input is mutable in place) to
 * `finch sandbox run --profile read-only --minimal-env --cwd <cwd> -- bash -c '<command>'`, so it
 * reads the workspace, writes nothing that lasts, has no network and sees no secret of pi's
 * environment. Approved calls run as pi runs them.
 * Each verdict is recorded in the session as a `finch.verdict` custom entry (pi.appendEntry, so
 * it lands on pi's branch), which `finch session show` prints and `finch policy check --session`
 * reads back ("Allow for this session").
 *
 * Settings, from the environment pi runs in:
 *   FINCH_BIN              the finch executable (default: `finch` on PATH)
 *   FINCH_PERMISSION_MODE  `ask` (default) or `acceptCalls` (finch's scheduled runs set it)
 * If finch cannot be run or answers nothing readable, the call is blocked (fail closed).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

const BUILTINS = new Set(["read", "bash", "edit", "write", "grep", "find", "ls"]);
const CHECK_TIMEOUT_MS = 30_000;

interface FinchVerdict {
  decision: "allow" | "ask" | "deny";
  decidedBy: string;
  reason: string;
  risk?: string;
  sessionAllowOffered?: boolean;
  sessionKey?: string;
  finchTool?: string;
  /** Where an allowed Bash call must run: `read-only` (finch's sandbox), `workspace-write`, `none`. */
  sandbox?: string;
}

/** A word for `sh -c`: single-quoted, with single quotes escaped. */
function shellWord(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Runs `finch policy check`; resolves to the verdict, or rejects with a message. */
function policyCheck(args: string[]): Promise<FinchVerdict> {
  const finch = process.env.FINCH_BIN || "finch";
  return new Promise((resolve, reject) => {
    execFile(
      finch,
      ["policy", "check", ...args, "--json"],
      { timeout: CHECK_TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) {
          const said = String(stderr || "").trim() || error.message;
          reject(new Error(`\`${finch} policy check\` failed: ${said}`));
          return;
        }
        try {
          const verdict = JSON.parse(String(stdout)) as FinchVerdict;
          if (!["allow", "ask", "deny"].includes(verdict.decision)) {
            throw new Error(`unknown decision ${JSON.stringify(verdict.decision)}`);
          }
          resolve(verdict);
        } catch (e) {
          reject(new Error(`\`${finch} policy check\` answered something unreadable: ${(e as Error).message}`));
        }
      },
    );
  });
}

function summary(tool: string, input: Record<string, unknown>): string {
  const text = typeof input.command === "string" ? input.command : typeof input.path === "string" ? input.path : JSON.stringify(input);
  const line = text.split(/\s+/).join(" ");
  return line.length > 160 ? `${line.slice(0, 159)}…` : line;
}

export default function finchGate(pi: ExtensionAPI) {
  pi.on("tool_call", async (event, ctx) => {
    if (!BUILTINS.has(event.toolName)) return undefined;
    const input = (event.input ?? {}) as Record<string, unknown>;
    const mode = process.env.FINCH_PERMISSION_MODE === "acceptCalls" ? "acceptCalls" : "ask";
    const args = ["--agent", "pi", "--confine", event.toolName, JSON.stringify(input), "--mode", mode, "--cwd", ctx.cwd];
    const file = ctx.sessionManager.getSessionFile();
    if (file && existsSync(file)) args.push("--session", file);

    const record = (data: Record<string, unknown>) => {
      try {
        pi.appendEntry("finch.verdict", { agent: "pi", tool: event.toolName, arguments: { ...input }, mode, ...data });
      } catch {
        // The session may not be persisted (--no-session): the verdict still stands.
      }
    };

    let verdict: FinchVerdict;
    try {
      verdict = await policyCheck(args);
    } catch (e) {
      const reason = `finch could not judge this call, so it is blocked: ${(e as Error).message}`;
      record({ decision: "deny", decidedBy: "finchUnavailable", reason });
      return { block: true, reason };
    }
    const base = {
      decision: verdict.decision,
      decidedBy: verdict.decidedBy,
      reason: verdict.reason,
      finchTool: verdict.finchTool,
      sessionKey: verdict.sessionKey,
    };
    if (verdict.decision === "allow") {
      record({ ...base, sandbox: verdict.sandbox });
      if (event.toolName === "bash" && verdict.sandbox === "read-only" && typeof input.command === "string") {
        // The fast lane: pi's bash runs the command inside finch's read-only sandbox.
        const finch = process.env.FINCH_BIN || "finch";
        input.command = [
          shellWord(finch), "sandbox", "run", "--profile", "read-only", "--minimal-env",
          "--cwd", shellWord(ctx.cwd), "--", "bash", "-c", shellWord(input.command),
        ].join(" ");
      }
      return undefined;
    }
    if (verdict.decision === "deny") {
      record(base);
      return { block: true, reason: `finch denied \`${event.toolName}\`: ${verdict.reason}` };
    }
    // ask: a person decides, when pi has someone to ask.
    if (!ctx.hasUI) {
      record({ ...base, answer: "noPerson" });
      return {
        block: true,
        reason: `finch asks for a person's approval of \`${event.toolName}\` (${verdict.reason}), and this pi run has nobody to ask. Do not retry the same call.`,
      };
    }
    const choices = ["Allow once", ...(verdict.sessionAllowOffered ? ["Allow for this session"] : []), "Deny"];
    const title = `finch: allow ${event.toolName} ${summary(event.toolName, input)}? (risk ${verdict.risk ?? "?"}; ${verdict.reason})`;
    const picked = await ctx.ui.select(title, choices);
    const answer = picked === "Allow once" ? "allowOnce" : picked === "Allow for this session" ? "allowForSession" : "deny";
    record({ ...base, answer });
    if (answer === "deny") {
      return { block: true, reason: `The user denied \`${event.toolName}\`. Do not retry the same call.` };
    }
    return undefined;
  });
}
