// A consumer of the packed packages, as an app's node client would use them: every entry point
// imported, the consumer's own zod schemas passed to the agent package's client (one copy of
// zod, the consumer's: the packages have it as a peer), one runtime (the agent package's
// `./runtime`, which the connect, MCP, ACP and app packages import and re-export, the same
// functions), an MCP client and server and an ACP client and agent over the runtime's JSON-RPC
// connection, and the app package's client over the agent package's Node WebSocket port
// against a small host on 127.0.0.1. Compiled by run.mjs
// with `tsc --strict` under nodenext and bundler resolution, then run; exits non-zero on the
// first failed check. Every wait is bounded.

import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { z } from 'zod';
import {
    AGENT_EVENT_SCHEMAS,
    AGENT_REQUEST_SCHEMAS,
    ContractClient,
    RequestError,
    createPortPair,
    parseRequest,
    type ServerFrame,
} from '@adecore/agent-contracts';
import { TerminalApprovalAnswerSchema, type TerminalApprovalAnswer } from '@adecore/agent-contracts/agent';
import { TaskStateSchema, type TaskState } from '@adecore/agent-contracts/task';
import { connectNodePort } from '@adecore/agent-contracts/node';
import agentSchema from '@adecore/agent-contracts/schema.json' with { type: 'json' };
import { parseWith, RpcError, type ParseResult } from '@adecore/agent-contracts/runtime';
import * as agent from '@adecore/agent-contracts';
import * as documents from '@adecore/documents-contracts';
import * as connect from '@adecore/connect-frames';
import * as mcp from '@adecore/mcp-contracts';
import * as acp from '@adecore/acp-contracts';
import mcpSchema from '@adecore/mcp-contracts/schema.json' with { type: 'json' };
import { createDocumentsClient, DOCUMENTS_REQUEST_TYPES, parseDocumentsRequestPayload } from '@adecore/documents-contracts';
import { parseClientFrame } from '@adecore/connect-frames';

/** Fails after `ms` with `what`, so that nothing here waits forever. */
function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
    });
    return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** A documents host: `document.read` answers the text of `notes`, anything else is refused. */
async function host(): Promise<{ url: string; stop: () => Promise<void> }> {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => server.once('listening', resolve));
    server.on('connection', (socket) => {
        socket.on('message', (data) => {
            const frame = parseRequest(JSON.parse(data.toString()));
            let reply: ServerFrame;
            if (!frame.ok) {
                reply = { id: null, ok: false, error: { code: 'unreadable-frame', message: frame.message } };
            } else if (frame.value.type === 'document.read') {
                const payload = parseDocumentsRequestPayload('document.read', frame.value.payload);
                reply = payload.ok && payload.value.id === 'notes'
                    ? { id: frame.value.id, ok: true, result: { text: 'first draft' } }
                    : { id: frame.value.id, ok: false, error: { code: 'unknown-document', message: 'no such document' } };
            } else {
                reply = { id: frame.value.id, ok: false, error: { code: 'unknown-request', message: frame.value.type } };
            }
            socket.send(JSON.stringify(reply));
        });
    });
    const { port } = server.address() as AddressInfo;
    return {
        url: `ws://127.0.0.1:${port}`,
        stop: () => {
            for (const s of server.clients) s.terminate();
            return new Promise((resolve) => server.close(() => resolve()));
        },
    };
}

// Every entry point resolves, types and values.
const answer: TerminalApprovalAnswer = TerminalApprovalAnswerSchema.parse({ approvalId: 'a1', choice: 'yes' });
assert.equal(answer.approvalId, 'a1');
const state: TaskState = TaskStateSchema.parse('running');
assert.equal(state, 'running');
assert.equal(TaskStateSchema.safeParse('asleep').success, false);
assert.equal(agentSchema.$schema, 'https://json-schema.org/draft/2020-12/schema');
assert.equal(parseClientFrame({}).ok, false);
assert.ok(DOCUMENTS_REQUEST_TYPES.includes('chat.list') && DOCUMENTS_REQUEST_TYPES.includes('document.read'));

// One runtime: the agent package's, imported by the connect and app packages, not copied.
for (const [name, pkg] of [['agent', agent], ['documents', documents], ['connect', connect], ['mcp', mcp], ['acp', acp]] as const) {
    assert.equal(pkg.parseWith, parseWith, `${name}'s parseWith is the runtime's`);
    assert.equal(pkg.noTableEntry, agent.noTableEntry, `${name}'s noTableEntry is the runtime's`);
}
const viaRuntime: ParseResult<string> = parseWith(z.string(), 'x');
const viaConnect: connect.ParseResult<string> = viaRuntime;
assert.deepEqual(viaConnect, { ok: true, value: 'x' });

// The consumer's zod schemas beside the package's in one table: this type-checks only when the
// package's zod types are the consumer's (two copies give TS2322).
const requests = {
    ...AGENT_REQUEST_SCHEMAS,
    'echo.say': { payload: z.object({ text: z.string() }), result: z.object({ text: z.string() }) },
} as const;
{
    const [mine, theirs] = createPortPair();
    theirs.onFrame((raw) => {
        const frame = parseRequest(raw);
        if (frame.ok) theirs.send({ id: frame.value.id, ok: true, result: frame.value.payload });
    });
    const client = new ContractClient(mine, { requests, events: AGENT_EVENT_SCHEMAS });
    const said: { text: string } = await within(2000, 'echo.say', client.request('echo.say', { text: 'hi' }));
    assert.deepEqual(said, { text: 'hi' });
    client.close();
}

// MCP and ACP: each side of the protocol over the runtime's JSON-RPC connection, in memory.
assert.equal(mcpSchema.$schema, 'https://json-schema.org/draft/2020-12/schema');
{
    const [a, b] = createPortPair<string>();
    const server = mcp.connectMcpHost(b, {
        handlers: {
            initialize: async (p) => ({ protocolVersion: p.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'server', version: '1' } }),
            'tools/call': async (p) => ({ content: [{ type: 'text', text: `called ${p.name}` }] }),
        },
    });
    const client = mcp.connectMcpClient(a);
    const init = await within(2000, 'initialize', client.request('initialize', { protocolVersion: mcp.LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'client', version: '1' } }));
    assert.equal(init.serverInfo.name, 'server');
    assert.deepEqual(await within(2000, 'tools/call', client.request('tools/call', { name: 'x' })), { content: [{ type: 'text', text: 'called x' }] });
    await assert.rejects(within(2000, 'tools/list', client.request('tools/list', {})), (e: unknown) => e instanceof RpcError && e.code === -32601);
    client.close();
    server.close();
}
{
    const [a, b] = createPortPair<string>();
    const agentSide = acp.connectAcpHost(b, { handlers: { initialize: async (p) => ({ protocolVersion: p.protocolVersion }) } });
    const editor = acp.connectAcpClient(a);
    assert.deepEqual(await within(2000, 'initialize', editor.request('initialize', { protocolVersion: acp.PROTOCOL_VERSION })), { protocolVersion: acp.PROTOCOL_VERSION });
    editor.close();
    agentSide.close();
}

// The app package's client over the Node WebSocket port, against a real socket.
const h = await host();
const port = await within(5000, 'connect', connectNodePort(h.url));
const client = createDocumentsClient(port);
try {
    const read = await within(5000, 'document.read', client.request('document.read', { id: 'notes' }));
    assert.equal(read.text, 'first draft');
    await assert.rejects(within(5000, 'document.read', client.request('document.read', { id: 'nope' })), (e: unknown) => {
        return e instanceof RequestError && e.code === 'unknown-document';
    });
} finally {
    client.close();
    port.close();
    await within(5000, 'close', port.closed);
    await h.stop();
}
console.log('npm consumer: every entry point, one zod, one runtime, MCP and ACP over JSON-RPC, the app client over the Node port: ok');
