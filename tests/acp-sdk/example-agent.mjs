#!/usr/bin/env node
// The ACP TypeScript SDK's example agent, served over stdio with `@agentclientprotocol/sdk`'s
// own agent connection: what examples/acp-agent/tests/sdk_agent.rs drives with our generated
// Rust client. The SDK's package leaves its examples out (`!dist/examples`), so this is the
// example's turn (src/examples/agent.ts in agentclientprotocol/typescript-sdk) written again
// on the SDK 2.4.0 API (`agent()`, `onRequest`, `connect`), without its one-second pauses:
//
// 1. an agent message chunk;
// 2. a tool call `call_1` (kind read, pending) and its update to completed with a text content;
// 3. another message chunk;
// 4. a tool call `call_2` (kind edit, pending), then `session/request_permission` for it with
//    the options `allow` (allow once) and `reject` (reject once);
// 5. allowed: `call_2` completed and a message saying so; rejected: a message saying the change
//    was skipped; a `cancelled` outcome ends the turn.
//
// `session/cancel` aborts the session's turn, which then answers `cancelled` (the SDK's example
// answers `end_turn` when the permission outcome is `cancelled`; ACP says `cancelled`).
// Sessions are numbered (`session-1`, ...) so a test can name them.

import * as acp from "@agentclientprotocol/sdk";
import { Readable, Writable } from "node:stream";

/** @type {Map<string, { pending: AbortController | null }>} */
const sessions = new Map();

/** Lets the event loop run (a notification may arrive), then stops if the turn was aborted. */
async function step(signal) {
  await new Promise((resolve) => setImmediate(resolve));
  if (signal.aborted) {
    throw signal.reason ?? new Error("aborted");
  }
}

/** The example's turn, sending through `client` for `sessionId`. */
async function turn(client, sessionId, signal) {
  const update = (u) => client.notify(acp.methods.client.session.update, { sessionId, update: u });
  const say = (text) => update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });

  await say("I'll help you with that. Let me start by reading some files to understand the current situation.");
  await step(signal);
  await update({
    sessionUpdate: "tool_call",
    toolCallId: "call_1",
    title: "Reading project files",
    kind: "read",
    status: "pending",
    locations: [{ path: "/project/README.md" }],
    rawInput: { path: "/project/README.md" },
  });
  await step(signal);
  await update({
    sessionUpdate: "tool_call_update",
    toolCallId: "call_1",
    status: "completed",
    content: [{ type: "content", content: { type: "text", text: "# My Project\n\nThis is a sample project..." } }],
    rawOutput: { content: "# My Project\n\nThis is a sample project..." },
  });
  await step(signal);
  await say(" Now I understand the project structure. I need to make some changes to improve it.");
  await step(signal);
  const edit = {
    toolCallId: "call_2",
    title: "Modifying critical configuration file",
    kind: "edit",
    status: "pending",
    locations: [{ path: "/project/config.json" }],
    rawInput: { path: "/project/config.json", content: '{"database": {"host": "new-host"}}' },
  };
  await update({ sessionUpdate: "tool_call", ...edit });
  const answer = await client.request(acp.methods.client.session.requestPermission, {
    sessionId,
    toolCall: edit,
    options: [
      { kind: "allow_once", name: "Allow this change", optionId: "allow" },
      { kind: "reject_once", name: "Skip this change", optionId: "reject" },
    ],
  });
  if (answer.outcome.outcome === "cancelled") {
    return "cancelled";
  }
  await step(signal);
  switch (answer.outcome.optionId) {
    case "allow":
      await update({
        sessionUpdate: "tool_call_update",
        toolCallId: "call_2",
        status: "completed",
        rawOutput: { success: true, message: "Configuration updated" },
      });
      await say(" Perfect! I've successfully updated the configuration. The changes have been applied.");
      return "end_turn";
    case "reject":
      await say(" I understand you prefer not to make that change. I'll skip the configuration update.");
      return "end_turn";
    default:
      throw acp.RequestError.invalidParams(undefined, `unexpected permission option ${answer.outcome.optionId}`);
  }
}

acp
  .agent({ name: "example-agent" })
  .onRequest(acp.methods.agent.initialize, () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: { loadSession: false },
    agentInfo: { name: "sdk-example-agent", version: "2.4.0" },
  }))
  .onRequest(acp.methods.agent.session.new, () => {
    const sessionId = `session-${sessions.size + 1}`;
    sessions.set(sessionId, { pending: null });
    return { sessionId };
  })
  .onRequest(acp.methods.agent.authenticate, () => ({}))
  .onRequest(acp.methods.agent.session.setMode, () => ({}))
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const session = sessions.get(params.sessionId);
    if (!session) {
      throw acp.RequestError.sessionNotFound(params.sessionId);
    }
    session.pending?.abort();
    const pending = new AbortController();
    session.pending = pending;
    try {
      const stopReason = await turn(client, params.sessionId, pending.signal);
      return { stopReason: pending.signal.aborted ? "cancelled" : stopReason };
    } catch (error) {
      if (pending.signal.aborted) {
        return { stopReason: "cancelled" };
      }
      throw error;
    } finally {
      if (session.pending === pending) {
        session.pending = null;
      }
    }
  })
  .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
    sessions.get(params.sessionId)?.pending?.abort();
  })
  .connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
