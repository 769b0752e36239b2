// MCP over the runtime's JSON-RPC connection: a client and a server (`connectMcpClient`,
// `connectMcpHost`) on an in-memory pair of ports, with requests in flight both ways (a tool
// that samples through the client), cancellation by `notifications/cancelled` both ways, the
// refusals with their codes and messages, the bounds on requests served and waiting, and what
// the connection answers a peer that sends garbage, batches, invalid envelopes or answers a
// result the table refuses.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPortPair } from '@adecore/agent-contracts';
import { PassThrough } from 'node:stream';
import { ConnectionClosedError, DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_WAITING, InvalidResultError, ndjsonPort, RPC_CODES, RpcError, type RpcPort } from '@adecore/agent-contracts/runtime';
import { connectMcpClient, connectMcpHost, LATEST_PROTOCOL_VERSION, type McpHostHandlers } from '@adecore/mcp-contracts';

/** Every frame a port sends, parsed, in order; `next` waits for the next one. */
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

/** A hand-driven end of a port: what it receives, in order, and `next()` for the next one. */
function peer(port: RpcPort): { send(frame: unknown): void; sendText(text: string): void; next(): Promise<unknown> } {
    const queue: unknown[] = [];
    const waiting: ((frame: unknown) => void)[] = [];
    port.onFrame((f) => {
        const frame = JSON.parse(f as string);
        const w = waiting.shift();
        if (w === undefined) queue.push(frame);
        else w(frame);
    });
    return {
        send: (frame) => port.send(JSON.stringify(frame)),
        sendText: (text) => port.send(text),
        next: () => (queue.length > 0 ? Promise.resolve(queue.shift()) : new Promise((resolve) => waiting.push(resolve))),
    };
}

const CLIENT_INFO = { name: 'test-client', version: '1.0.0' };
const SERVER_INFO = { name: 'test-server', version: '1.0.0' };

/** A server with a few tools: `echo`, `ask` (samples through the client), `wait` (until cancelled). */
function serverHandlers(host: () => ReturnType<typeof connectMcpHost>, waits: { started?: () => void; ended?: (reason: unknown) => void }): McpHostHandlers {
    return {
        initialize: async (p) => ({ protocolVersion: p.protocolVersion, capabilities: { tools: {} }, serverInfo: SERVER_INFO }),
        'tools/list': async () => ({ tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }),
        'tools/call': async (p, { signal }) => {
            if (p.name === 'echo') return { content: [{ type: 'text', text: String(p.arguments?.text) }] };
            if (p.name === 'ask') {
                // A request to the client while the client's request is in flight.
                const reply = await host().request('sampling/createMessage', {
                    messages: [{ role: 'user', content: { type: 'text', text: String(p.arguments?.question) } }],
                    maxTokens: 10,
                });
                const content = Array.isArray(reply.content) ? reply.content[0] : reply.content;
                return { content: [{ type: 'text', text: `${reply.model} said ${content?.type === 'text' ? content.text : '?'}` }] };
            }
            if (p.name === 'wait') {
                waits.started?.();
                return new Promise((_, reject) => {
                    signal.addEventListener('abort', () => {
                        waits.ended?.(signal.reason);
                        reject(signal.reason);
                    });
                });
            }
            if (p.name === 'refuse') throw { code: -32042, message: 'a URL elicitation first', data: { elicitations: [] } };
            if (p.name === 'throw') throw new Error('the tool broke');
            return { content: 'not an array' } as never;
        },
        ping: async () => ({}),
    };
}

test('a client and a server: initialize, tools, a sampling request from inside a tool call', { timeout: 10_000 }, async () => {
    const [a, b] = createPortPair<string>();
    const server = connectMcpHost(b, { handlers: serverHandlers(() => server, {}) });
    const asked: string[] = [];
    const client = connectMcpClient(a, {
        handlers: {
            ping: async () => ({}),
            'sampling/createMessage': async (p) => {
                const first = Array.isArray(p.messages[0]!.content) ? p.messages[0]!.content[0] : p.messages[0]!.content;
                asked.push(first?.type === 'text' ? first.text : '?');
                return { role: 'assistant', content: { type: 'text', text: 'forty-two' }, model: 'm-1' };
            },
        },
    });
    const init = await client.request('initialize', { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: { sampling: {} }, clientInfo: CLIENT_INFO });
    assert.deepEqual(init, { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: { tools: {} }, serverInfo: SERVER_INFO });
    await client.notify('notifications/initialized', {});
    assert.deepEqual(await client.request('tools/list', {}), { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] });
    assert.deepEqual(await client.request('tools/call', { name: 'echo', arguments: { text: 'hi' } }), { content: [{ type: 'text', text: 'hi' }] });
    // Two tool calls at once, each with a request of the server's to the client in flight.
    const [x, y] = await Promise.all([
        client.request('tools/call', { name: 'ask', arguments: { question: 'six times seven?' } }),
        client.request('tools/call', { name: 'ask', arguments: { question: 'and again?' } }),
    ]);
    assert.deepEqual(x, { content: [{ type: 'text', text: 'm-1 said forty-two' }] });
    assert.deepEqual(y, { content: [{ type: 'text', text: 'm-1 said forty-two' }] });
    assert.deepEqual(asked.sort(), ['and again?', 'six times seven?']);
    assert.deepEqual(await server.request('ping', {}), {});
    client.close();
    server.close();
});

test('refusals carry JSON-RPC codes and the dispatcher\'s messages', { timeout: 10_000 }, async () => {
    const [a, b] = createPortPair<string>();
    const server = connectMcpHost(b, { handlers: serverHandlers(() => server, {}) });
    const client = connectMcpClient(a);
    const refused = async (call: Promise<unknown>, code: number, message: string | RegExp, data?: unknown) => {
        await assert.rejects(call, (e: unknown) => {
            assert.ok(e instanceof RpcError, String(e));
            assert.equal(e.code, code);
            if (typeof message === 'string') assert.equal(e.message, message);
            else assert.match(e.message, message);
            assert.deepEqual(e.data, data);
            return true;
        });
    };
    await refused(client.connection.request('tools/nope', {}), RPC_CODES.methodNotFound, 'method not found: tools/nope');
    // A request only the server sends, sent to the server.
    await refused(client.connection.request('sampling/createMessage', {}), RPC_CODES.methodNotFound, 'method not found: sampling/createMessage');
    await refused(client.request('resources/list', {}), RPC_CODES.methodNotFound, 'method not found: resources/list is not supported');
    await refused(client.connection.request('tools/call', { name: 5 }), RPC_CODES.invalidParams, '✖ Invalid input: expected string, received number\n  → at name');
    await refused(client.request('tools/call', { name: 'refuse' }), -32042, 'a URL elicitation first', { elicitations: [] });
    await refused(client.request('tools/call', { name: 'throw' }), RPC_CODES.internalError, 'the tool broke');
    await refused(client.request('tools/call', { name: 'bad' }), RPC_CODES.internalError, /^the host's result of tools\/call is not valid, so it was not sent: /);
    // The client has no handlers: the server's request is refused by the client's dispatcher.
    await refused(server.request('roots/list', {}), RPC_CODES.methodNotFound, 'method not found: roots/list is not supported');
    client.close();
    server.close();
});

test('an aborted call sends notifications/cancelled; the handler is aborted and nothing is answered', { timeout: 10_000 }, async () => {
    const [a, b] = createPortPair<string>();
    const out = tap(b);
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let ended!: (reason: unknown) => void;
    const aborted = new Promise<unknown>((resolve) => (ended = resolve));
    const cancel = { method: 'notifications/cancelled' } as const;
    const server = connectMcpHost(out.port, { handlers: serverHandlers(() => server, { started, ended }), cancel });
    const client = connectMcpClient(a, { cancel });
    const controller = new AbortController();
    const call = client.request('tools/call', { name: 'wait' }, { signal: controller.signal });
    await running;
    controller.abort('the user stopped it');
    await assert.rejects(call, (e: unknown) => e === 'the user stopped it');
    const reason = await aborted;
    assert.ok(reason instanceof DOMException);
    assert.equal(reason.name, 'AbortError');
    assert.equal(reason.message, 'the user stopped it');
    // A later round trip: the cancelled request's handler has ended, and no answer was sent for it.
    assert.deepEqual(await client.request('ping', {}), {});
    assert.deepEqual(
        out.sent.map((f) => (f as { id?: unknown }).id),
        [2],
        'only the ping was answered',
    );
    // A signal aborted before the call: nothing is sent.
    await assert.rejects(client.request('ping', {}, { signal: AbortSignal.abort('early') }), (e: unknown) => e === 'early');
    client.close();
    server.close();
});

test('the server cancels its request to the client; without a cancel notification nothing is sent', { timeout: 10_000 }, async () => {
    const [a, b] = createPortPair<string>();
    let seen!: (signal: AbortSignal) => void;
    const handled = new Promise<AbortSignal>((resolve) => (seen = resolve));
    const client = connectMcpClient(a, {
        cancel: { method: 'notifications/cancelled' },
        handlers: {
            'roots/list': (_p, { signal }) =>
                new Promise((_, reject) => {
                    seen(signal);
                    signal.addEventListener('abort', () => reject(signal.reason));
                }),
        },
    });
    const server = connectMcpHost(b, { cancel: { method: 'notifications/cancelled' } });
    const controller = new AbortController();
    const call = server.request('roots/list', {}, { signal: controller.signal });
    const signal = await handled;
    controller.abort();
    await assert.rejects(call, (e: unknown) => e instanceof DOMException && e.name === 'AbortError');
    if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
    assert.equal((signal.reason as DOMException).message, 'the other side cancelled the request');

    // No cancel notification configured: the caller gives up alone, the handler runs on.
    const [c, d] = createPortPair<string>();
    const heard = tap(d);
    let finish!: () => void;
    const plainServer = connectMcpHost(heard.port, {
        handlers: { ping: () => new Promise((resolve) => (finish = () => resolve({}))) },
    });
    const reports: string[] = [];
    const plainClient = connectMcpClient(c, { onInvalidFrame: (m) => reports.push(m) });
    const stop = new AbortController();
    const ping = plainClient.request('ping', {}, { signal: stop.signal });
    await new Promise((resolve) => setImmediate(resolve));
    stop.abort('gave up');
    await assert.rejects(ping, (e: unknown) => e === 'gave up');
    finish();
    // The late answer arrives (the ports pass frames in microtasks) and is dropped without a report.
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(heard.sent, [{ jsonrpc: '2.0', id: 1, result: {} }]);
    assert.deepEqual(reports, []);
    for (const x of [client, server, plainClient, plainServer]) x.close();
});

test('a peer that sends garbage, batches or invalid envelopes is answered as JSON-RPC says', { timeout: 10_000 }, async () => {
    const [a, b] = createPortPair<string>();
    const reports: string[] = [];
    const server = connectMcpHost(b, { handlers: serverHandlers(() => server, {}), onInvalidFrame: (m) => reports.push(m) });
    const p = peer(a);
    // Not JSON: -32700; MCP's error response has no id for it (MCP 2025-11-25's id is
    // optional, never null). The words are the Rust connection's (tests/rpc-parity).
    p.sendText('{"jsonrpc": "2.0", "id": 1,');
    const garbage = (await p.next()) as { jsonrpc: string; id?: unknown; error: { code: number; message: string } };
    assert.equal('id' in garbage, false);
    assert.deepEqual(garbage, { jsonrpc: '2.0', error: { code: RPC_CODES.parseError, message: 'parse error: the message is not JSON text' } });
    p.send([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    assert.deepEqual(await p.next(), {
        jsonrpc: '2.0',
        error: { code: -32600, message: 'invalid request: a batch (a JSON array of messages) is not supported; send each message on its own' },
    });
    // The envelope refused: the id answered when it can be read.
    p.send({ jsonrpc: '1.0', id: 7, method: 'ping' });
    assert.deepEqual(await p.next(), { jsonrpc: '2.0', id: 7, error: { code: -32600, message: 'invalid request: "jsonrpc" must be "2.0"' } });
    p.send({ jsonrpc: '2.0', method: 5 });
    assert.deepEqual(await p.next(), { jsonrpc: '2.0', error: { code: -32600, message: 'invalid request: "method" must be a string' } });
    p.sendText('5');
    assert.deepEqual(await p.next(), { jsonrpc: '2.0', error: { code: -32600, message: 'invalid request: a message is a JSON object' } });
    p.send({ jsonrpc: '2.0', id: { x: 1 }, method: 'ping' });
    assert.deepEqual(await p.next(), { jsonrpc: '2.0', error: { code: -32600, message: 'invalid request: a request\'s "id" is a string or an integer, not an object' } });
    // An id already being served: refused without the id (it is the first request's).
    p.send({ jsonrpc: '2.0', id: 'dup', method: 'tools/call', params: { name: 'wait' } });
    p.send({ jsonrpc: '2.0', id: 'dup', method: 'ping' });
    assert.deepEqual(await p.next(), { jsonrpc: '2.0', error: { code: -32600, message: 'invalid request: request "dup" is already being served; an id is used once' } });
    // Absent params are read as `{}`; a request answered after all that.
    p.send({ jsonrpc: '2.0', id: 'a', method: 'ping' });
    assert.deepEqual(await p.next(), { jsonrpc: '2.0', id: 'a', result: {} });
    // Nothing is answered for a notification, even one the table refuses, or a stray response.
    p.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: true } });
    p.send({ jsonrpc: '2.0', id: 99, result: {} });
    p.send({ jsonrpc: '2.0', method: 'notifications/unknown' });
    p.send({ jsonrpc: '2.0', id: 'b', method: 'ping' });
    assert.deepEqual(await p.next(), { jsonrpc: '2.0', id: 'b', result: {} });
    assert.deepEqual(reports, [
        'the params of notifications/cancelled are not valid: ✖ Invalid input\n  → at requestId',
        'a response to no request in flight (id 99)',
    ]);
    server.close();
});

test('requests past the bounds are refused -32000 at once, not buffered; a cancelled one stops waiting', { timeout: 10_000 }, async () => {
    const [a, b] = createPortPair<string>();
    const held: (() => void)[] = [];
    const started: string[] = [];
    const handlers: McpHostHandlers = {
        'tools/call': (p) => {
            started.push(p.name);
            return new Promise((resolve) => held.push(() => resolve({ content: [{ type: 'text', text: p.name }] })));
        },
    };
    const server = connectMcpHost(b, { handlers, maxInFlight: 1, maxWaiting: 1, cancel: { method: 'notifications/cancelled' } });
    const p = peer(a);
    const call = (id: number, name: string) => p.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name } });
    const overloaded = (id: number) => ({
        jsonrpc: '2.0',
        id,
        error: { code: RPC_CODES.overloaded, message: 'overloaded: 1 requests are waiting to be served; send this one again after an answer' },
    });
    call(1, 'one');
    call(2, 'two');
    call(3, 'three');
    // One served, one waiting: the third is refused at once, with its id.
    assert.deepEqual(await p.next(), overloaded(3));
    assert.deepEqual(started, ['one']);
    // The waiting one, cancelled, is forgotten unanswered (MCP answers no cancelled request);
    // it keeps its place in the queue until its turn, as in the Rust connection.
    p.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } });
    call(4, 'four');
    assert.deepEqual(await p.next(), overloaded(4));
    // The first answered, the cancelled one skipped: the next request is served at once.
    held.shift()!();
    assert.deepEqual(await p.next(), { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'one' }] } });
    call(5, 'five');
    await new Promise((resolve) => setImmediate(resolve)); // The port passes frames in microtasks.
    held.shift()!();
    assert.deepEqual(await p.next(), { jsonrpc: '2.0', id: 5, result: { content: [{ type: 'text', text: 'five' }] } });
    assert.deepEqual(started, ['one', 'five']);
    server.close();

    // The defaults, the Rust connection's: 64 served, 256 waiting, the next refused.
    assert.deepEqual([DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_WAITING], [64, 256]);
    const [c, d] = createPortPair<string>();
    const plain = connectMcpHost(d, { handlers });
    const q = peer(c);
    started.length = 0;
    held.length = 0;
    const total = DEFAULT_MAX_IN_FLIGHT + DEFAULT_MAX_WAITING + 1;
    for (let id = 1; id <= total; id++) q.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: `n${id}` } });
    const refusal = (await q.next()) as { id: number; error: { code: number; message: string } };
    assert.equal(refusal.id, total);
    assert.equal(refusal.error.message, 'overloaded: 256 requests are waiting to be served; send this one again after an answer');
    assert.equal(started.length, DEFAULT_MAX_IN_FLIGHT);
    plain.close();
});

test('over NDJSON, a line over the limit is answered -32600 and the next one is served', { timeout: 10_000 }, async () => {
    const toServer = new PassThrough();
    const fromServer = new PassThrough();
    // The limit holds for what is sent too: the refusal must fit in it.
    const server = connectMcpHost(ndjsonPort(toServer, fromServer, { maxFrameBytes: 128 }), { handlers: { ping: async () => ({}) } });
    const lines: unknown[] = [];
    let two!: () => void;
    const answered = new Promise<void>((resolve) => (two = resolve));
    fromServer.on('data', (chunk: Buffer) => {
        for (const line of chunk.toString().split('\n')) {
            if (line !== '' && lines.push(JSON.parse(line)) === 2) two();
        }
    });
    const long = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(100)}"}}`;
    toServer.write(`${long}\r\n`);
    toServer.write('{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await answered;
    assert.deepEqual(lines, [
        { jsonrpc: '2.0', error: { code: -32600, message: `invalid request: frame too large: ${long.length} bytes, the limit is 128 bytes` } },
        { jsonrpc: '2.0', id: 2, result: {} },
    ]);
    // The input's end closes the connection.
    toServer.end();
    await server.closed;
});

test('a response the envelope or the table refuses fails its request', { timeout: 10_000 }, async () => {
    const [a, b] = createPortPair<string>();
    const client = connectMcpClient(a);
    const p = peer(b);
    const listed = client.request('tools/list', {});
    const request = (await p.next()) as { id: number; method: string; params: unknown };
    assert.deepEqual(request, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    p.send({ jsonrpc: '2.0', id: request.id, result: { tools: 'none' } });
    await assert.rejects(listed, (e: unknown) => e instanceof InvalidResultError && e.method === 'tools/list' && e.issues.includes('→ at tools'));
    const pinged = client.request('ping', {});
    const ping = (await p.next()) as { id: number };
    p.send({ jsonrpc: '2.0', id: ping.id, error: { code: 'x', message: 'no' } });
    await assert.rejects(pinged, (e: unknown) => e instanceof InvalidResultError && e.method === 'ping' && e.issues === '✖ Invalid input');
    const third = client.request('ping', {});
    const last = (await p.next()) as { id: number };
    p.send({ jsonrpc: '2.0', id: last.id, error: { code: -32000, message: 'busy', data: [1] } });
    await assert.rejects(third, (e: unknown) => e instanceof RpcError && e.code === -32000 && e.message === 'busy' && JSON.stringify(e.data) === '[1]');
    client.close();
});

test('close rejects the calls in flight and aborts the handlers; a closed connection sends nothing', { timeout: 10_000 }, async () => {
    const [a, b] = createPortPair<string>();
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    let ended!: (reason: unknown) => void;
    const aborted = new Promise<unknown>((resolve) => (ended = resolve));
    const out = tap(b);
    const server = connectMcpHost(out.port, { handlers: serverHandlers(() => server, { started, ended }) });
    const client = connectMcpClient(a);
    const call = client.request('tools/call', { name: 'wait' });
    await running;
    server.close('shutting down');
    const reason = await aborted;
    assert.ok(reason instanceof ConnectionClosedError);
    assert.equal(reason.message, 'shutting down');
    await server.closed;
    await assert.rejects(server.request('ping', {}), ConnectionClosedError);
    await assert.rejects(server.notify('notifications/tools/list_changed', {}), ConnectionClosedError);
    client.close();
    await assert.rejects(call, (e: unknown) => e instanceof ConnectionClosedError && e.message === 'the connection is closed');
    assert.deepEqual(out.sent, []);
});
