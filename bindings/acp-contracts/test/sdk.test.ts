// The package's connection against the official ACP TypeScript SDK (`@agentclientprotocol/sdk`,
// pinned), over newline-delimited JSON both ways (the SDK's `ndJsonStream` on one end, the
// runtime's `ndjsonPort` on the other, through a pair of pipes): the SDK's client drives our
// agent (`connectAcpHost`), and our client (`connectAcpClient`) drives an agent made with the
// SDK. Each way: initialize, session/new, a prompt turn with session updates, a file read and a
// permission asked back while the prompt is in flight, and `$/cancel_request` aborting the
// other side's handler, answered with -32800.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough, Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { ndjsonPort, RpcError, type RpcPort } from '@adecore/agent-contracts/runtime';
import { connectAcpClient, connectAcpHost, ErrorCode } from '@adecore/acp-contracts';
import { agent, CANCEL, type Update } from './agent.js';

/** Two pipes: the SDK's stream at one end, our port at the other. */
function wire(): { stream: acp.Stream; port: RpcPort; end(): void } {
    const toSdk = new PassThrough();
    const fromSdk = new PassThrough();
    const stream = acp.ndJsonStream(Writable.toWeb(fromSdk) as unknown as WritableStream<Uint8Array>, Readable.toWeb(toSdk) as unknown as ReadableStream<Uint8Array>);
    return { stream, port: ndjsonPort(fromSdk, toSdk), end: () => toSdk.end() };
}

test('the SDK\'s client drives our agent: a prompt turn with a file read and a permission, then a cancelled request', { timeout: 20_000 }, async () => {
    const { stream, port, end } = wire();
    const made = agent(() => host);
    let aborted!: () => void;
    const handlerAborted = new Promise<void>((resolve) => (aborted = resolve));
    const handlers = {
        ...made.handlers,
        'session/prompt': async (p: Parameters<NonNullable<typeof made.handlers['session/prompt']>>[0], context: { signal: AbortSignal }) => {
            context.signal.addEventListener('abort', () => aborted());
            return made.handlers['session/prompt']!(p, context);
        },
    };
    const host = connectAcpHost(port, { handlers, listeners: { 'session/cancel': (p) => made.cancelTurn(p.sessionId) }, cancel: CANCEL });
    const updates: unknown[] = [];
    const asked: string[] = [];
    const app = acp
        .client({ name: 'sdk-client' })
        .onRequest('fs/read_text_file', async ({ params }) => {
            asked.push(`read ${params.path}`);
            return { content: 'buy milk' };
        })
        .onRequest('session/request_permission', async ({ params }) => {
            asked.push(`permission for ${params.toolCall.title}`);
            return { outcome: { outcome: 'selected', optionId: params.options[1]!.optionId } };
        })
        .onNotification('session/update', ({ params }) => {
            updates.push(params.update);
        });
    await app.connectWith(stream, async (ctx) => {
        const init = await ctx.request('initialize', { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: true, writeTextFile: false } } });
        assert.equal(init.protocolVersion, acp.PROTOCOL_VERSION);
        assert.deepEqual(init.agentInfo, { name: 'test-agent', version: '1.0.0' });
        const session = await ctx.request('session/new', { cwd: '/work', mcpServers: [] });
        assert.equal(session.sessionId, 'session-1');
        const done = await ctx.request('session/prompt', { sessionId: session.sessionId, prompt: [{ type: 'text', text: 'summarize my notes' }] });
        assert.equal(done.stopReason, 'end_turn');
        assert.deepEqual(asked, ['read /work/notes.txt', 'permission for Edit notes.txt']);
        assert.deepEqual(updates.map((u) => (u as Update).sessionUpdate), ['plan', 'tool_call', 'tool_call_update', 'agent_message_chunk']);
        assert.deepEqual((updates[3] as Update & { content: unknown }).content, { type: 'text', text: 'read 8 characters; edit: no' });
        // The SDK cancels with $/cancel_request; our handler is aborted and the SDK hears -32800.
        const controller = new AbortController();
        const waiting = ctx.request('session/prompt', { sessionId: 'session-2', prompt: [{ type: 'text', text: 'wait' }] }, { cancellationSignal: controller.signal });
        await new Promise((resolve) => setTimeout(resolve, 0));
        controller.abort();
        await assert.rejects(waiting, (e: unknown) => e instanceof acp.RequestError && e.code === -32800);
        await handlerAborted;
    });
    end();
    await host.closed;
});

test('our client drives the SDK\'s agent: a prompt turn answered back, then a cancelled request', { timeout: 20_000 }, async () => {
    const { stream, port, end } = wire();
    let aborted!: (reason: unknown) => void;
    const handlerAborted = new Promise<unknown>((resolve) => (aborted = resolve));
    const sdkAgent = acp
        .agent({ name: 'sdk-agent' })
        .onRequest('initialize', async ({ params }) => ({ protocolVersion: params.protocolVersion, agentCapabilities: { loadSession: false }, agentInfo: { name: 'sdk-agent', version: '2.4.0' } }))
        .onRequest('session/new', async () => ({ sessionId: 'sdk-session' }))
        .onRequest('session/prompt', async ({ params, client, signal }) => {
            const first = params.prompt[0];
            if (first?.type === 'text' && first.text === 'wait') {
                await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
                aborted(signal.reason);
                throw signal.reason;
            }
            const file = await client.request('fs/read_text_file', { sessionId: params.sessionId, path: '/work/notes.txt' });
            const permission = await client.request('session/request_permission', {
                sessionId: params.sessionId,
                toolCall: { toolCallId: 'call-1', title: 'Edit notes.txt', kind: 'edit' },
                options: [{ optionId: 'yes', name: 'Allow', kind: 'allow_once' }],
            });
            const chosen = permission.outcome.outcome === 'selected' ? permission.outcome.optionId : 'cancelled';
            await client.notify('session/update', { sessionId: params.sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${file.content} / ${chosen}` } } });
            return { stopReason: 'end_turn' };
        });
    const connection = sdkAgent.connect(stream);
    const updates: Update[] = [];
    const client = connectAcpClient(port, {
        cancel: CANCEL,
        handlers: {
            'fs/read_text_file': async (p) => ({ content: `contents of ${p.path}` }),
            'session/request_permission': async (p) => ({ outcome: { outcome: 'selected', optionId: p.options[0]!.optionId } }),
        },
        listeners: { 'session/update': (p) => updates.push(p.update) },
    });
    const init = await client.request('initialize', { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: true, writeTextFile: false } } });
    assert.deepEqual(init.agentInfo, { name: 'sdk-agent', version: '2.4.0' });
    const session = await client.request('session/new', { cwd: '/work', mcpServers: [] });
    assert.deepEqual(await client.request('session/prompt', { sessionId: session.sessionId, prompt: [{ type: 'text', text: 'go' }] }), { stopReason: 'end_turn' });
    assert.deepEqual(updates, [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'contents of /work/notes.txt / yes' } }]);
    // Our abort sends $/cancel_request: the SDK's handler is aborted, and its -32800 settles our call.
    const controller = new AbortController();
    const waiting = client.request('session/prompt', { sessionId: session.sessionId, prompt: [{ type: 'text', text: 'wait' }] }, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 0));
    controller.abort();
    await assert.rejects(waiting, (e: unknown) => e instanceof RpcError && e.code === ErrorCode.RequestCancelled);
    const reason = await handlerAborted;
    assert.ok(reason instanceof acp.RequestError && reason.code === -32800);
    client.close();
    connection.close();
    end();
});
