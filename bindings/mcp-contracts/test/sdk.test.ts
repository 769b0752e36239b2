// The package's connection against the official MCP TypeScript SDK (`@modelcontextprotocol/sdk`,
// pinned): the SDK's `Client` talks to a server made with `connectMcpHost` (in memory, and over
// stdio, the server a child process on `ndjsonPort(stdin, stdout)`), and `connectMcpClient`
// talks to the SDK's `McpServer`. Both ways: initialize, tools listed and called, a sampling
// request from inside a tool call, progress, an unknown tool refused with -32602, and
// `notifications/cancelled` aborting the other side's handler. Run as a child process with
// MCP_CONTRACTS_STDIO_HOST=1, this file is the stdio server.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CreateMessageRequestSchema, McpError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ConnectionClosedError, ndjsonPort, RPC_CODES, RpcError, type RpcPort } from '@adecore/agent-contracts/runtime';
import { connectMcpClient, connectMcpHost, LATEST_PROTOCOL_VERSION, type McpHostHandlers } from '@adecore/mcp-contracts';

const CANCEL = { method: 'notifications/cancelled' } as const;
const SERVER_INFO = { name: 'contracts-server', version: '1.0.0' };

/** One of the SDK's transports as a port of JSON texts: what our connection runs over. */
function portOf(transport: InMemoryTransport): RpcPort {
    const listeners = new Set<(frame: unknown) => void>();
    transport.onmessage = (message) => {
        const text = JSON.stringify(message);
        for (const l of [...listeners]) l(text);
    };
    void transport.start();
    return {
        send: (text) => void transport.send(JSON.parse(text) as JSONRPCMessage),
        onFrame(listener) {
            listeners.add(listener);
            return () => listeners.delete(listener);
        },
    };
}

/** What our server's `wait` tool reports: it started, and the reason its signal aborted. */
interface Waits {
    started?: () => void;
    ended?: (reason: unknown) => void;
}

/** Our server: `echo`, `ask` (samples through the client), `count` (progress), `wait` (until cancelled). */
function handlers(host: () => ReturnType<typeof connectMcpHost>, waits: Waits = {}): McpHostHandlers {
    return {
        initialize: async () => ({ protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: { tools: { listChanged: false } }, serverInfo: SERVER_INFO }),
        ping: async () => ({}),
        'tools/list': async () => ({
            tools: [
                { name: 'echo', description: 'Echoes its text', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
                { name: 'ask', inputSchema: { type: 'object' } },
                { name: 'count', inputSchema: { type: 'object' } },
                { name: 'wait', inputSchema: { type: 'object' } },
            ],
        }),
        'tools/call': async (p, { signal }) => {
            switch (p.name) {
                case 'echo':
                    return { content: [{ type: 'text', text: String(p.arguments?.text) }] };
                case 'ask': {
                    const reply = await host().request('sampling/createMessage', {
                        messages: [{ role: 'user', content: { type: 'text', text: 'six times seven?' } }],
                        maxTokens: 5,
                    });
                    const content = Array.isArray(reply.content) ? reply.content[0] : reply.content;
                    return { content: [{ type: 'text', text: content?.type === 'text' ? content.text : '?' }] };
                }
                case 'count': {
                    const token = p._meta?.progressToken;
                    for (const progress of [1, 2]) {
                        if (token !== undefined) await host().notify('notifications/progress', { progressToken: token, progress, total: 2 });
                    }
                    return { content: [{ type: 'text', text: 'counted' }] };
                }
                case 'wait':
                    waits.started?.();
                    return new Promise((_, reject) =>
                        signal.addEventListener('abort', () => {
                            waits.ended?.(signal.reason);
                            reject(signal.reason);
                        }),
                    );
                default:
                    throw { code: RPC_CODES.invalidParams, message: `Unknown tool: ${p.name}` };
            }
        },
    };
}

/** The SDK's client, with a sampling handler, connected through `transport`. */
async function sdkClient(transport: InMemoryTransport | StdioClientTransport): Promise<Client> {
    const client = new Client({ name: 'sdk-client', version: '1.0.0' }, { capabilities: { sampling: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', content: { type: 'text', text: 'forty-two' }, model: 'm-1' }));
    await client.connect(transport);
    return client;
}

/**
 * What every server of ours answers the SDK's client, however it is reached. `progressRace`: the
 * SDK hears a notification a turn later than a response, and forgets a request's progress token
 * when its response comes (modelcontextprotocol/typescript-sdk#2580, open): progress that
 * arrives in the same read as the result (over stdio) may be dropped, so only a prefix of it is
 * required there.
 */
async function exercise(client: Client, progressRace = false): Promise<void> {
    assert.deepEqual(client.getServerVersion(), SERVER_INFO);
    assert.deepEqual(client.getServerCapabilities(), { tools: { listChanged: false } });
    const tools = await client.listTools();
    assert.deepEqual(tools.tools.map((t) => t.name), ['echo', 'ask', 'count', 'wait']);
    assert.deepEqual(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }), { content: [{ type: 'text', text: 'hi' }] });
    assert.deepEqual(await client.callTool({ name: 'ask', arguments: {} }), { content: [{ type: 'text', text: 'forty-two' }] });
    const progress: unknown[] = [];
    let both!: () => void;
    const counted = new Promise<void>((resolve) => (both = resolve));
    const onprogress = (p: unknown) => {
        if (progress.push(p) === 2) both();
    };
    assert.deepEqual(await client.callTool({ name: 'count', arguments: {} }, undefined, { onprogress }), { content: [{ type: 'text', text: 'counted' }] });
    const sent = [
        { progress: 1, total: 2 },
        { progress: 2, total: 2 },
    ];
    if (progressRace) {
        assert.deepEqual(progress, sent.slice(0, progress.length));
    } else {
        await counted;
        assert.deepEqual(progress, sent);
    }
    await assert.rejects(client.callTool({ name: 'nope', arguments: {} }), (e: unknown) => e instanceof McpError && e.code === -32602 && e.message === 'MCP error -32602: Unknown tool: nope');
    assert.deepEqual(await client.ping(), {});
}

if (process.env.MCP_CONTRACTS_STDIO_HOST === '1') {
    // The stdio server: until its input ends.
    const host = connectMcpHost(ndjsonPort(process.stdin, process.stdout), { handlers: handlers(() => host), cancel: CANCEL });
    void host.closed.then(() => process.exit(0));
} else {
    test('the SDK\'s client and our server, in memory: tools, sampling, progress, refusals, cancellation', { timeout: 20_000 }, async () => {
        const [ours, theirs] = InMemoryTransport.createLinkedPair();
        let started!: () => void;
        const running = new Promise<void>((resolve) => (started = resolve));
        let ended!: (reason: unknown) => void;
        const aborted = new Promise<unknown>((resolve) => (ended = resolve));
        const host = connectMcpHost(portOf(ours), { handlers: handlers(() => host, { started, ended }), cancel: CANCEL });
        const client = await sdkClient(theirs);
        await exercise(client);
        // The SDK cancels with notifications/cancelled: our handler's signal aborts with its reason.
        const controller = new AbortController();
        const call = client.callTool({ name: 'wait', arguments: {} }, undefined, { signal: controller.signal });
        await running;
        controller.abort('no longer needed');
        await assert.rejects(call);
        const reason = await aborted;
        assert.ok(reason instanceof DOMException);
        assert.equal(reason.message, 'no longer needed');
        await client.close();
        host.close();
    });

    test('the SDK\'s client and our server over stdio (a child process on ndjsonPort)', { timeout: 20_000 }, async () => {
        const transport = new StdioClientTransport({
            command: process.execPath,
            args: [fileURLToPath(import.meta.url)],
            env: { MCP_CONTRACTS_STDIO_HOST: '1' },
            stderr: 'inherit',
        });
        try {
            await exercise(await sdkClient(transport), true);
        } finally {
            // Ends the child's input: it exits.
            await transport.close();
        }
    });

    test('our client and the SDK\'s McpServer: tools, a sampling request answered, refusals, cancellation', { timeout: 20_000 }, async () => {
        const server = new McpServer({ name: 'sdk-server', version: '1.0.0' });
        let started!: () => void;
        const running = new Promise<void>((resolve) => (started = resolve));
        let ended!: (reason: unknown) => void;
        const aborted = new Promise<unknown>((resolve) => (ended = resolve));
        server.registerTool('echo', { description: 'Echoes its text', inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
        server.registerTool('ask', { description: 'Asks the client\'s model' }, async () => {
            const reply = await server.server.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'six times seven?' } }], maxTokens: 5 });
            return { content: [{ type: 'text', text: reply.content.type === 'text' ? `${reply.model}: ${reply.content.text}` : '?' }] };
        });
        server.registerTool('wait', { description: 'Waits until cancelled' }, (extra) => {
            started();
            return new Promise((_, reject) =>
                extra.signal.addEventListener('abort', () => {
                    ended(extra.signal.reason);
                    reject(new Error('cancelled'));
                }),
            );
        });
        const [ours, theirs] = InMemoryTransport.createLinkedPair();
        await server.connect(theirs);
        const asked: unknown[] = [];
        const client = connectMcpClient(portOf(ours), {
            cancel: CANCEL,
            handlers: {
                'sampling/createMessage': async (p) => {
                    asked.push(p.messages);
                    return { role: 'assistant', content: { type: 'text', text: 'forty-two' }, model: 'm-1' };
                },
            },
        });
        const init = await client.request('initialize', { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: { sampling: {} }, clientInfo: { name: 'contracts-client', version: '1.0.0' } });
        assert.equal(init.protocolVersion, LATEST_PROTOCOL_VERSION);
        assert.deepEqual(init.serverInfo, { name: 'sdk-server', version: '1.0.0' });
        await client.notify('notifications/initialized', {});
        const tools = await client.request('tools/list', {});
        assert.deepEqual(tools.tools.map((t) => t.name), ['echo', 'ask', 'wait']);
        assert.deepEqual(tools.tools[0]!.inputSchema.required, ['text']);
        assert.deepEqual(await client.request('tools/call', { name: 'echo', arguments: { text: 'hi' } }), { content: [{ type: 'text', text: 'hi' }] });
        assert.deepEqual(await client.request('tools/call', { name: 'ask', arguments: {} }), { content: [{ type: 'text', text: 'm-1: forty-two' }] });
        assert.deepEqual(asked, [[{ role: 'user', content: { type: 'text', text: 'six times seven?' } }]]);
        // The SDK answers an unknown tool with a tool error (a result), as MCP 2025-11-25 says.
        const unknown = await client.request('tools/call', { name: 'nope', arguments: {} });
        assert.ok('isError' in unknown && unknown.isError === true, JSON.stringify(unknown));
        await assert.rejects(client.request('tools/call', { name: 'echo', arguments: { text: 5 } }).then((r) => ('isError' in r && r.isError ? Promise.reject(r) : r)));
        await assert.rejects(client.connection.request('nope/nope', {}), (e: unknown) => e instanceof RpcError && e.code === RPC_CODES.methodNotFound);
        // Our client cancels: the SDK's handler sees its signal abort.
        const controller = new AbortController();
        const call = client.request('tools/call', { name: 'wait', arguments: {} }, { signal: controller.signal });
        await running;
        controller.abort('no longer needed');
        await assert.rejects(call, (e: unknown) => e === 'no longer needed');
        assert.equal(await aborted, 'no longer needed');
        client.close();
        await server.close();
    });

    test('a closed stdio port rejects the calls in flight', { timeout: 20_000 }, async () => {
        const child = spawn(process.execPath, [fileURLToPath(import.meta.url)], { env: { ...process.env, MCP_CONTRACTS_STDIO_HOST: '1' }, stdio: ['pipe', 'pipe', 'inherit'] });
        try {
            const client = connectMcpClient(ndjsonPort(child.stdout, child.stdin));
            const init = await client.request('initialize', { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'c', version: '1' } });
            assert.equal(init.protocolVersion, LATEST_PROTOCOL_VERSION);
            const waiting = client.request('tools/call', { name: 'wait', arguments: {} });
            assert.deepEqual(await client.request('ping', {}), {});
            child.kill();
            await assert.rejects(waiting, (e: unknown) => e instanceof ConnectionClosedError && e.message === 'the port closed');
            await client.closed;
            await assert.rejects(client.request('ping', {}), ConnectionClosedError);
        } finally {
            child.kill();
        }
    });
}
