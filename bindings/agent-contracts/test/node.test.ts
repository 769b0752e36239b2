// The Node WebSocket port (`@adecore/agent-contracts/node`) over a real socket: a `ws` server
// on 127.0.0.1, port 0, that answers requests with the package's own parse functions, as a
// host would. Every wait is bounded (the server's own and node:test's --test-timeout).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { RequestError, createAgentClient, parseRequest, type ServerFrame } from '@adecore/agent-contracts';
import { connectNodePort } from '@adecore/agent-contracts/node';

/** A host on a real socket: answers chat.list, echoes every frame's text to `seen`. */
async function host(): Promise<{
    url: string;
    seen: string[];
    sockets: Set<WebSocket>;
    authorization: (string | undefined)[];
    stop: () => Promise<void>;
}> {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => server.once('listening', resolve));
    const seen: string[] = [];
    const sockets = new Set<WebSocket>();
    const authorization: (string | undefined)[] = [];
    server.on('connection', (socket, request) => {
        sockets.add(socket);
        authorization.push(request.headers.authorization);
        socket.on('message', (data) => {
            const text = data.toString();
            seen.push(text);
            const frame = parseRequest(JSON.parse(text));
            const reply: ServerFrame = !frame.ok
                ? { id: null, ok: false, error: { code: 'unreadable-frame', message: frame.message } }
                : frame.value.type === 'chat.list'
                  ? { id: frame.value.id, ok: true, result: { chats: [] } }
                  : { id: frame.value.id, ok: false, error: { code: 'unknown-request', message: frame.value.type } };
            socket.send(JSON.stringify(reply));
            if (frame.ok && frame.value.type === 'chat.list') {
                socket.send(JSON.stringify({ type: 'event', event: 'usage.changed', payload: { scannedAt: 7 } }));
                socket.send('not json');
            }
        });
    });
    const { port } = server.address() as AddressInfo;
    return {
        url: `ws://127.0.0.1:${port}`,
        seen,
        sockets,
        authorization,
        stop: () => {
            for (const s of sockets) s.terminate();
            return new Promise((resolve) => server.close(() => resolve()));
        },
    };
}

test('requests, replies and events over a real WebSocket', async () => {
    const h = await host();
    const invalid: unknown[] = [];
    const port = await connectNodePort(h.url);
    const client = createAgentClient(port, { onInvalidFrame: (_message, frame) => invalid.push(frame) });
    try {
        const usage = new Promise((resolve) => client.on('usage.changed', resolve));
        assert.deepEqual(await client.request('chat.list', {}), { chats: [] });
        assert.deepEqual(await usage, { scannedAt: 7 });
        await assert.rejects(client.request('chat.create', { title: 'x' }), (e: unknown) => {
            return e instanceof RequestError && e.code === 'unknown-request';
        });
        // One JSON text message per frame, as sent.
        assert.deepEqual(JSON.parse(h.seen[0]!), { id: '1', type: 'chat.list', payload: {} });
        // A message that is not JSON reaches the client as its text, which refuses it.
        assert.deepEqual(invalid, ['not json']);
    } finally {
        client.close();
        port.close();
        await h.stop();
    }
});

test('closed settles with the code when the server closes, and send then fails', async () => {
    const h = await host();
    const port = await connectNodePort(h.url);
    const client = createAgentClient(port);
    try {
        for (const s of h.sockets) s.close(4001, 'bye');
        assert.deepEqual(await port.closed, { code: 4001, reason: 'bye' });
        assert.throws(() => port.send({ id: '9', type: 'chat.list', payload: {} }), /is not open/);
        await assert.rejects(client.request('chat.list', {}), (e: unknown) => {
            return e instanceof RequestError && e.code === 'send-failed';
        });
    } finally {
        client.close();
        await h.stop();
    }
});

test('closing from the client end settles closed with 1000', async () => {
    const h = await host();
    const port = await connectNodePort(h.url);
    port.close();
    assert.equal((await port.closed).code, 1000);
    await h.stop();
});

test('the token goes as Authorization: Bearer, and none without it', async () => {
    const h = await host();
    const port = await connectNodePort(h.url, { token: 't0k/+' });
    const bare = await connectNodePort(h.url);
    assert.deepEqual(h.authorization, ['Bearer t0k/+', undefined]);
    port.close();
    bare.close();
    await Promise.all([port.closed, bare.closed]);
    await h.stop();
});

test('a refused connection rejects with the address', async () => {
    const h = await host();
    const url = h.url;
    await h.stop();
    await assert.rejects(connectNodePort(url), (e: unknown) => {
        return e instanceof Error && e.message.startsWith(`could not open a WebSocket to ${url}`);
    });
});

test('a bad URL rejects rather than throws', async () => {
    await assert.rejects(connectNodePort('http://127.0.0.1:1/'), /WebSocket|URL|protocol/i);
});
