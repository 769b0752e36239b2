// ACP over the runtime's JSON-RPC connection: an agent (`connectAcpHost`) and a client
// (`connectAcpClient`) on an in-memory pair of ports. A prompt turn streams `session/update`
// notifications while the agent asks the client for a permission and a file (requests in flight
// both ways); `session/cancel` ends a turn; `$/cancel_request` aborts a handler and is still
// answered (-32800), as ACP requires; refusals carry their codes; an unreadable message is
// answered with `"id": null`, as ACP's `RequestId` admits.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPortPair } from '@adecore/agent-contracts';
import { RPC_CODES, RpcError, type RpcPort } from '@adecore/agent-contracts/runtime';
import { connectAcpClient, connectAcpHost, ErrorCode, PROTOCOL_VERSION } from '@adecore/acp-contracts';
import { agent, CANCEL, type Update } from './agent.js';

/** Every frame a port sends, parsed, in order. */
function tap(port: RpcPort): { port: RpcPort; sent: unknown[] } {
    const sent: unknown[] = [];
    return {
        sent,
        port: {
            send(frame) {
                sent.push(JSON.parse(frame));
                port.send(frame);
            },
            onFrame: (l) => port.onFrame(l),
        },
    };
}

test('a prompt turn: updates streamed, a file read and a permission asked through the client while the prompt is in flight', { timeout: 10_000 }, async () => {
    const [a, b] = createPortPair<string>();
    const made = agent(() => host);
    const host = connectAcpHost(b, { handlers: made.handlers, listeners: { 'session/cancel': (p) => made.cancelTurn(p.sessionId) } });
    const updates: Update[] = [];
    const asked: string[] = [];
    const client = connectAcpClient(a, {
        handlers: {
            'fs/read_text_file': async (p) => {
                asked.push(`read ${p.path} from line ${p.line}`);
                return { content: 'buy milk' };
            },
            'session/request_permission': async (p) => {
                asked.push(`permission for ${p.toolCall.title}`);
                return { outcome: { outcome: 'selected', optionId: p.options[0]!.optionId } };
            },
        },
        listeners: { 'session/update': (p) => updates.push(p.update) },
    });
    const init = await client.request('initialize', { protocolVersion: PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: true, writeTextFile: false } } });
    assert.deepEqual(init, { protocolVersion: PROTOCOL_VERSION, agentCapabilities: { loadSession: false }, agentInfo: { name: 'test-agent', version: '1.0.0' } });
    const session = await client.request('session/new', { cwd: '/work', mcpServers: [] });
    assert.deepEqual(session, { sessionId: 'session-1' });
    const done = await client.request('session/prompt', { sessionId: session.sessionId, prompt: [{ type: 'text', text: 'summarize my notes' }] });
    assert.deepEqual(done, { stopReason: 'end_turn' });
    assert.deepEqual(asked, ['read /work/notes.txt from line 1', 'permission for Edit notes.txt']);
    assert.deepEqual(updates, [
        { sessionUpdate: 'plan', entries: [{ content: 'read the notes', priority: 'high', status: 'in_progress' }] },
        { sessionUpdate: 'tool_call', toolCallId: 'call-1', title: 'Read notes.txt', kind: 'read', status: 'pending' },
        { sessionUpdate: 'tool_call_update', toolCallId: 'call-1', status: 'completed', content: [{ type: 'content', content: { type: 'text', text: 'buy milk' } }] },
        { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'read 8 characters; edit: yes' } },
    ]);
    client.close();
    host.close();
});

test('session/cancel ends a turn; $/cancel_request aborts the handler and is answered with -32800', { timeout: 10_000 }, async () => {
    const [a, b] = createPortPair<string>();
    const made = agent(() => host);
    const out = tap(b);
    const host = connectAcpHost(out.port, { handlers: made.handlers, listeners: { 'session/cancel': (p) => made.cancelTurn(p.sessionId) }, cancel: CANCEL });
    const client = connectAcpClient(a, { cancel: CANCEL });
    // The turn's own cancellation: the prompt answers `cancelled`.
    const turn = client.request('session/prompt', { sessionId: 'session-1', prompt: [{ type: 'text', text: 'wait' }] });
    await new Promise((resolve) => setImmediate(resolve));
    await client.notify('session/cancel', { sessionId: 'session-1' });
    assert.deepEqual(await turn, { stopReason: 'cancelled' });
    // The request's cancellation: the handler is aborted, the agent still answers (-32800), and
    // the caller's promise settles with that answer, as ACP's SDK settles it.
    const controller = new AbortController();
    const call = client.request('session/prompt', { sessionId: 'session-2', prompt: [{ type: 'text', text: 'wait' }] }, { signal: controller.signal });
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort('stop');
    await assert.rejects(call, (e: unknown) => e instanceof RpcError && e.code === ErrorCode.RequestCancelled && e.message === 'Request cancelled');
    await assert.rejects(client.request('session/load', { sessionId: 'session-1', cwd: '/work', mcpServers: [] }), (e: unknown) => e instanceof RpcError && e.code === RPC_CODES.methodNotFound);
    assert.deepEqual(out.sent, [
        { jsonrpc: '2.0', id: 1, result: { stopReason: 'cancelled' } },
        { jsonrpc: '2.0', id: 2, error: { code: -32800, message: 'Request cancelled' } },
        { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'method not found: session/load is not supported' } },
    ]);
    client.close();
    host.close();
});

test('refusals carry their codes; an unreadable message is answered with a null id', { timeout: 10_000 }, async () => {
    const [a, b] = createPortPair<string>();
    const made = agent(() => host);
    const host = connectAcpHost(b, { handlers: made.handlers });
    const answers: unknown[] = [];
    let got!: () => void;
    a.onFrame((f) => {
        answers.push(JSON.parse(f as string));
        if (answers.length === 5) got();
    });
    const all = new Promise<void>((resolve) => (got = resolve));
    a.send('not json');
    a.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: 7, mcpServers: [] } }));
    a.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'fs/read_text_file', params: { sessionId: 's', path: '/x' } }));
    // An id is a string or a safe integer (as the Rust connection reads it): 2^63 is not one.
    a.send(JSON.stringify({ jsonrpc: '2.0', id: 2 ** 63, method: 'session/new', params: { cwd: '/', mcpServers: [] } }));
    a.send(JSON.stringify({ jsonrpc: '2.0', id: null, method: 'session/new', params: { cwd: '/', mcpServers: [] } }));
    await all;
    // The refusals of the envelope are sent at once, the dispatcher's answers after a turn: by id.
    const [garbage, ...rest] = answers as { id: unknown; error?: { code: number; message: string } }[];
    assert.equal(garbage!.id, null);
    assert.equal(garbage!.error!.code, RPC_CODES.parseError);
    const byId = (x: unknown) => JSON.stringify((x as { id: unknown }).id) + JSON.stringify(x);
    assert.deepEqual(rest.sort((x, y) => byId(x).localeCompare(byId(y))), [
        { jsonrpc: '2.0', id: 1, error: { code: -32602, message: '✖ Invalid input: expected string, received number\n  → at cwd' } },
        { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'method not found: fs/read_text_file' } },
        { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request: a request\'s "id" is a string or an integer, not an integer beyond 2^53 - 1 (JavaScript\'s safe integers)' } },
        // A null id ACP admits but discourages (SHOULD NOT): refused, as the Rust connection does
        // (its answer could not be told from the answer to an unreadable message).
        { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request: a request\'s "id" is a string or an integer, not null' } },
    ]);
    host.close();
});
