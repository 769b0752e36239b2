// The official ACP TypeScript SDK's client (`@agentclientprotocol/sdk` 2.4.0: `client()` and
// `connectWith`, over `ndJsonStream` on the child's stdio) drives `acp-agent` (the binary
// ACP_AGENT_BIN names; examples/acp-agent/tests/sdk_client.rs runs this with it). The SDK
// checks every message it reads with its own Zod schemas, so each answer and update of ours is
// judged by the official types as well as by the assertions.
//
// Each test starts its own agent and ends it by closing the connection: the agent must then
// exit with status 0. Every test has a time limit.

import * as acp from "@agentclientprotocol/sdk";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { test } from "node:test";

const AGENT = process.env.ACP_AGENT_BIN;
const LIMIT = { timeout: 30_000 };

// The editor's files: a project directory with one file.
const project = mkdtempSync(join(tmpdir(), "acp-sdk-"));
const file = join(project, "notes.md");
writeFileSync(file, "# Notes\nsecond line\nthird line\n");

/**
 * Runs `work` as an SDK client connected to a fresh `acp-agent`: `editor` says how the client
 * answers permission requests. Answers what `work` answers and the editor's log (every
 * update, permission request and file read, in order), after checking the agent exited 0.
 */
async function withAgent(editor, work) {
  assert.ok(AGENT, "ACP_AGENT_BIN names the acp-agent binary");
  const child = spawn(AGENT, [], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  const log = [];
  const app = acp
    .client({ name: "acp-sdk-test" })
    .onNotification(acp.methods.client.session.update, ({ params, agent }) => {
      log.push({ kind: "update", params });
      editor.onUpdate?.(params, agent);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params, agent, signal }) => {
      log.push({ kind: "permission", params });
      return editor.permission(params, agent, signal, log);
    })
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
      log.push({ kind: "read", params });
      return { content: readFileSync(params.path, "utf8") };
    });
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  let out;
  try {
    out = await app.connectWith(stream, work);
  } catch (error) {
    child.kill();
    error.message += `\nagent stderr:\n${stderr}`;
    throw error;
  }
  child.stdin.end();
  const { code, signal } = await exited;
  assert.deepEqual({ code, signal }, { code: 0, signal: null }, `the agent exits cleanly:\n${stderr}`);
  return { out, log };
}

/** `initialize` offering `fs.readTextFile`, then `session/new` in the project: both answers. */
async function open(ctx, readTextFile = true) {
  const init = await ctx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile, writeTextFile: false } },
    clientInfo: { name: "acp-sdk-test", version: "2.4.0" },
  });
  const session = await ctx.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [] });
  return { init, sessionId: session.sessionId };
}

const prompt = (ctx, sessionId, text, options) =>
  ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] }, options);

const allow = { permission: () => ({ outcome: { outcome: "selected", optionId: "allow" } }) };

/** The log as short lines: `update <kind> ...`, `permission <toolCallId>`, `read <path>`. */
function lines(log) {
  return log.map((entry) => {
    if (entry.kind === "permission") {
      return `permission ${entry.params.toolCall.toolCallId}`;
    }
    if (entry.kind === "read") {
      return `read ${entry.params.path}`;
    }
    if (entry.kind === "aborted") {
      return `aborted ${entry.code}`;
    }
    const u = entry.params.update;
    switch (u.sessionUpdate) {
      case "agent_message_chunk":
      case "agent_thought_chunk":
        return `${u.sessionUpdate} ${u.content.text}`;
      case "plan":
        return `plan ${u.entries.map((e) => e.status).join(",")}`;
      case "tool_call":
      case "tool_call_update":
        return `${u.sessionUpdate} ${u.toolCallId} ${u.status}`;
      default:
        return u.sessionUpdate;
    }
  });
}

test("initialize, session/new and a prompt: plan, chunks, a tool call asking permission and reading through the client", LIMIT, async () => {
  const { out, log } = await withAgent(allow, async (ctx) => {
    const { init, sessionId } = await open(ctx);
    const answer = await prompt(ctx, sessionId, `hello\nthink about it\nread ${file}`);
    return { init, sessionId, answer };
  });
  assert.equal(out.init.protocolVersion, 1);
  assert.equal(out.init.agentInfo.name, "acp-agent");
  assert.equal(out.init.agentCapabilities.loadSession, false);
  assert.deepEqual(out.init.agentCapabilities.sessionCapabilities, { close: {} });
  assert.deepEqual(out.init.authMethods, []);
  assert.equal(out.sessionId, "sess-1");
  assert.deepEqual(out.answer, { stopReason: "end_turn" });
  assert.deepEqual(lines(log), [
    "plan in_progress,pending,pending",
    "agent_message_chunk hello",
    "plan completed,in_progress,pending",
    "agent_thought_chunk about it",
    "plan completed,completed,in_progress",
    "tool_call call-1 pending",
    "permission call-1",
    "tool_call_update call-1 in_progress",
    `read ${file}`,
    "tool_call_update call-1 completed",
    `agent_message_chunk ${file} has 3 lines; the first reads: # Notes`,
    "plan completed,completed,completed",
  ]);
  assert.ok(log.every((e) => e.params.sessionId === "sess-1"), "every message names the session");
  const plan = log[0].params.update;
  assert.deepEqual(
    plan.entries.map((e) => [e.content, e.priority]),
    [["Answer: hello", "medium"], ["Think: about it", "low"], [`Read ${file}`, "high"]],
  );
  const call = log[5].params.update;
  assert.equal(call.kind, "read");
  assert.deepEqual(call.locations, [{ path: file }]);
  assert.deepEqual(call.rawInput, { path: file });
  const asked = log[6].params;
  assert.deepEqual(
    asked.options.map((o) => [o.optionId, o.kind]),
    [["allow", "allow_once"], ["reject", "reject_once"]],
  );
  assert.equal(asked.toolCall.title, `Read ${file}`);
  const done = log[9].params.update;
  assert.deepEqual(done.content, [{ type: "content", content: { type: "text", text: readFileSync(file, "utf8") } }]);
  assert.deepEqual(done.rawOutput, { lines: 3 });
});

test("a refused permission fails the tool call without reading, and the turn goes on", LIMIT, async () => {
  const reject = { permission: () => ({ outcome: { outcome: "selected", optionId: "reject" } }) };
  const { out, log } = await withAgent(reject, async (ctx) => {
    const { sessionId } = await open(ctx);
    return prompt(ctx, sessionId, `read ${file}\nstill here`);
  });
  assert.deepEqual(out, { stopReason: "end_turn" });
  assert.deepEqual(lines(log).filter((l) => !l.startsWith("plan")), [
    "tool_call call-1 pending",
    "permission call-1",
    "tool_call_update call-1 failed",
    "agent_message_chunk still here",
  ]);
  const failed = log.find((e) => e.params.update?.status === "failed").params.update;
  assert.equal(failed.content[0].content.text, "Permission refused.");
});

test("session/cancel ends a waiting prompt with cancelled, and the session takes a prompt again", LIMIT, async () => {
  const editor = {
    ...allow,
    onUpdate(params, agent) {
      const u = params.update;
      if (u.sessionUpdate === "agent_message_chunk" && u.content.text === "Waiting for session/cancel.") {
        void agent.notify(acp.methods.agent.session.cancel, { sessionId: params.sessionId });
      }
    },
  };
  const { out, log } = await withAgent(editor, async (ctx) => {
    const { sessionId } = await open(ctx);
    const cancelled = await prompt(ctx, sessionId, "wait\nnever said");
    const next = await prompt(ctx, sessionId, "again");
    return { cancelled, next };
  });
  assert.deepEqual(out, { cancelled: { stopReason: "cancelled" }, next: { stopReason: "end_turn" } });
  const said = lines(log).filter((l) => l.startsWith("agent_message_chunk"));
  assert.deepEqual(said, ["agent_message_chunk Waiting for session/cancel.", "agent_message_chunk again"]);
});

test("a cancel while permission is asked: answered cancelled as ACP says, the turn ends cancelled, nothing read", LIMIT, async () => {
  const editor = {
    async permission(params, agent) {
      await agent.notify(acp.methods.agent.session.cancel, { sessionId: params.sessionId });
      return { outcome: { outcome: "cancelled" } };
    },
  };
  const { out, log } = await withAgent(editor, async (ctx) => {
    const { sessionId } = await open(ctx);
    return prompt(ctx, sessionId, `read ${file}\nnever said`);
  });
  assert.deepEqual(out, { stopReason: "cancelled" });
  const seen = lines(log);
  assert.equal(seen.at(-1), "permission call-1");
  assert.ok(!seen.some((l) => l.startsWith("read ")), seen.join("\n"));
});

test("$/cancel_request of a prompt (the SDK's cancellationSignal) ends its turn cancelled, not with an error", LIMIT, async () => {
  const abort = new AbortController();
  const editor = {
    ...allow,
    onUpdate(params) {
      const u = params.update;
      if (u.sessionUpdate === "agent_message_chunk" && u.content.text === "Waiting for session/cancel.") {
        abort.abort();
      }
    },
  };
  const { out, log } = await withAgent(editor, async (ctx) => {
    const { sessionId } = await open(ctx);
    const cancelled = await prompt(ctx, sessionId, "wait\nnever said", { cancellationSignal: abort.signal });
    const next = await prompt(ctx, sessionId, "again");
    return { cancelled, next };
  });
  assert.deepEqual(out, { cancelled: { stopReason: "cancelled" }, next: { stopReason: "end_turn" } });
  const said = lines(log).filter((l) => l.startsWith("agent_message_chunk"));
  assert.deepEqual(said, ["agent_message_chunk Waiting for session/cancel.", "agent_message_chunk again"]);
});

test("a turn cancelled while permission is asked cancels that request with $/cancel_request: the handler's signal aborts", LIMIT, async () => {
  const editor = {
    // Cancels the turn, then answers only once the agent cancels this request (-32800 as the
    // signal's reason), as a client may that waits for $/cancel_request.
    async permission(params, agent, signal, log) {
      await agent.notify(acp.methods.agent.session.cancel, { sessionId: params.sessionId });
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      log.push({ kind: "aborted", code: signal.reason?.code });
      return { outcome: { outcome: "cancelled" } };
    },
  };
  const { out, log } = await withAgent(editor, async (ctx) => {
    const { sessionId } = await open(ctx);
    const cancelled = await prompt(ctx, sessionId, `read ${file}\nnever said`);
    const next = await prompt(ctx, sessionId, "again");
    return { cancelled, next };
  });
  assert.deepEqual(out, { cancelled: { stopReason: "cancelled" }, next: { stopReason: "end_turn" } });
  const aborted = log.findIndex((e) => e.kind === "aborted");
  assert.ok(aborted > 0, JSON.stringify(log));
  assert.equal(log[aborted].code, -32800);
  assert.equal(log[aborted - 1].kind, "permission");
  assert.ok(!log.some((e) => e.kind === "read"), JSON.stringify(log));
});

test("errors are ACP's: an unknown session, a relative cwd, a block the agent does not announce", LIMIT, async () => {
  const { out } = await withAgent(allow, async (ctx) => {
    const refusal = (promise) =>
      promise.then(
        (ok) => assert.fail(`expected a refusal, got ${JSON.stringify(ok)}`),
        (e) => {
          assert.ok(e instanceof acp.RequestError, String(e));
          return { code: e.code, data: e.data };
        },
      );
    const early = await refusal(ctx.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [] }));
    const { sessionId } = await open(ctx);
    return {
      early,
      unknown: await refusal(prompt(ctx, "sess-9", "hi")),
      relative: await refusal(ctx.request(acp.methods.agent.session.new, { cwd: "project", mcpServers: [] })),
      image: await refusal(
        ctx.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "image", data: "AAAA", mimeType: "image/png" }],
        }),
      ),
      closed: await ctx.request(acp.methods.agent.session.close, { sessionId }),
      gone: await refusal(prompt(ctx, sessionId, "hi")),
    };
  });
  assert.equal(out.early.code, -32600);
  assert.deepEqual(out.unknown, { code: -32002, data: { sessionId: "sess-9" } });
  assert.equal(out.relative.code, -32602);
  assert.equal(out.image.code, -32602);
  assert.deepEqual(out.closed, {});
  assert.equal(out.gone.code, -32002);
});
