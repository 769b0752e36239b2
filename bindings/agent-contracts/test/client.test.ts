// The typed client over an in-memory FramePort pair, against a small fake host that uses the
// package's own parse functions and tables (as a TypeScript host would).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
    AGENT_EVENT_SCHEMAS,
    AGENT_REQUEST_SCHEMAS,
    ContractClient,
    RequestError,
    createAgentClient,
    createPortPair,
    isAgentRequestType,
    parseAgentRequestPayload,
    parseRequest,
    type FramePort,
    type ServerFrame,
} from '@adecore/agent-contracts';

/** A host that answers chat.send, refuses what it does not do, and can push events. */
function fakeHost(port: FramePort) {
    const seen: string[] = [];
    port.onFrame((raw) => {
        const frame = parseRequest(raw);
        if (!frame.ok) {
            port.send({ id: null, ok: false, error: { code: 'unreadable-frame', message: frame.message } });
            return;
        }
        const { id, type, payload } = frame.value;
        seen.push(type);
        if (!isAgentRequestType(type)) {
            port.send({ id, ok: false, error: { code: 'unknown-request', message: `no request ${type}` } });
            return;
        }
        const checked = parseAgentRequestPayload(type, payload);
        if (!checked.ok) {
            port.send({ id, ok: false, error: { code: 'invalid-payload', message: checked.message } });
        } else if (type === 'chat.send') {
            port.send({ id, ok: true, result: { queued: false } });
        } else if (type === 'chat.list') {
            port.send({ id, ok: true, result: { chats: 'not an array' } });
        } else {
            port.send({ id, ok: false, error: { code: 'chat-unsupported', message: `${type} is not done here` } });
        }
    });
    return { seen, push: (frame: ServerFrame | unknown) => port.send(frame as ServerFrame) };
}

test('request resolves to the typed result', async () => {
    const [client, host] = createPortPair();
    fakeHost(host);
    const c = createAgentClient(client);
    const result = await c.request('chat.send', { chatId: 'c1', text: 'hello' });
    const queued: boolean = result.queued;
    assert.equal(queued, false);
    c.close();
});

test('a refusal rejects with the WireError', async () => {
    const [client, host] = createPortPair();
    fakeHost(host);
    const c = createAgentClient(client);
    await assert.rejects(c.request('chat.fork', { chatId: 'c1', itemId: 'i1' }), (e: unknown) => {
        assert.ok(e instanceof RequestError);
        assert.equal(e.code, 'chat-unsupported');
        assert.equal(e.message, 'chat.fork is not done here');
        return true;
    });
    c.close();
});

test('a bad payload is refused before it is sent, with the same message a host gives', async () => {
    const [client, host] = createPortPair();
    const h = fakeHost(host);
    const c = createAgentClient(client);
    await assert.rejects(c.request('chat.send', { chatId: '', text: 'x' }), (e: unknown) => {
        assert.ok(e instanceof RequestError);
        assert.equal(e.code, 'invalid-payload');
        assert.equal(e.message, '✖ Too small: expected string to have >=1 characters\n  → at chatId');
        return true;
    });
    assert.deepEqual(h.seen, []);
    // Unchecked, the host refuses it with the same words.
    const unchecked = createAgentClient(client, { checkPayloads: false });
    await assert.rejects(unchecked.request('chat.send', { chatId: '', text: 'x' }), {
        code: 'invalid-payload',
        message: '✖ Too small: expected string to have >=1 characters\n  → at chatId',
    });
    c.close();
    unchecked.close();
});

test('a result that does not match the table rejects', async () => {
    const [client, host] = createPortPair();
    fakeHost(host);
    const c = createAgentClient(client);
    await assert.rejects(c.request('chat.list', {}), { code: 'invalid-result', message: '✖ Invalid input: expected array, received string\n  → at chats' });
    c.close();
});

test('requests are correlated by id, whatever order the replies come in', async () => {
    const [client, host] = createPortPair();
    const held: { id: string; text: string }[] = [];
    host.onFrame((raw) => {
        const f = parseRequest(raw);
        if (!f.ok) return;
        held.push({ id: f.value.id, text: (f.value.payload as { text: string }).text });
        if (held.length === 2) {
            for (const h of held.reverse()) host.send({ id: h.id, ok: true, result: { queued: h.text === 'second' } });
        }
    });
    const c = createAgentClient(client);
    const [a, b] = await Promise.all([c.request('chat.send', { chatId: 'c', text: 'first' }), c.request('chat.send', { chatId: 'c', text: 'second' })]);
    assert.deepEqual([a.queued, b.queued], [false, true]);
    c.close();
});

test('events reach typed listeners; unknown and invalid ones do not', async () => {
    const [client, host] = createPortPair();
    const h = fakeHost(host);
    const invalid: string[] = [];
    const c = createAgentClient(client, { onInvalidFrame: (m) => invalid.push(m) });
    const got: number[] = [];
    const stop = c.on('usage.changed', (p) => got.push(p.scannedAt));
    h.push({ type: 'event', event: 'usage.changed', payload: { scannedAt: 5 } });
    h.push({ type: 'event', event: 'usage.newThing', payload: {} });
    // Names an object has by inheritance are unknown names too.
    h.push({ type: 'event', event: 'toString', payload: {} });
    h.push({ type: 'event', event: '__proto__', payload: {} });
    h.push({ type: 'event', event: 'usage.changed', payload: { scannedAt: -1 } });
    h.push({ nonsense: true });
    await new Promise((r) => setTimeout(r, 10));
    stop();
    h.push({ type: 'event', event: 'usage.changed', payload: { scannedAt: 6 } });
    await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(got, [5]);
    assert.deepEqual(invalid, ['✖ Too small: expected number to be >=0\n  → at scannedAt', '✖ Invalid input']);
    c.close();
});

test('the one-pass client (createAgentClient) and the two-stage one hear the same', async () => {
    const frames: unknown[] = [
        { type: 'event', event: 'usage.changed', payload: { scannedAt: 5 } },
        { type: 'event', event: 'usage.newThing', payload: {} },
        { type: 'event', event: 'usage.changed', payload: { scannedAt: -1 } },
        { type: 'event', event: 'usage.changed', payload: { scannedAt: 7 }, ok: 'odd' },
        { type: 'event', event: '', payload: {} },
        { id: '9', ok: true, result: {} },
        { id: null, ok: false, error: { code: 'unreadable-frame', message: 'no JSON' } },
        { nonsense: true },
    ];
    const heard = async (typed: boolean) => {
        const [client, host] = createPortPair();
        const h = fakeHost(host);
        const log: unknown[] = [];
        const onInvalidFrame = (m: string) => log.push(['invalid', m]);
        const c = typed
            ? createAgentClient(client, { onInvalidFrame })
            : new ContractClient(client, { requests: AGENT_REQUEST_SCHEMAS, events: AGENT_EVENT_SCHEMAS, onInvalidFrame });
        c.on('usage.changed', (p) => log.push(['usage.changed', p]));
        for (const f of frames) h.push(f as ServerFrame);
        await new Promise((r) => setTimeout(r, 10));
        c.close();
        return log;
    };
    const two = await heard(false);
    // Two events heard (one with an odd `ok`, read by the two stages), five frames reported.
    assert.deepEqual(await heard(true), two);
    assert.equal(two.length, 7);
});

test('close rejects what is still waiting', async () => {
    const [client] = createPortPair();
    const c = createAgentClient(client);
    const p = c.request('chat.cancel', { chatId: 'c' });
    c.close();
    await assert.rejects(p, { code: 'client-closed' });
    assert.ok(AGENT_REQUEST_SCHEMAS['chat.cancel']);
});

/** A port that hands frames to the client at once, with a `send` the test chooses. */
function syncPort(send: (frame: unknown) => void) {
    let deliver: (frame: unknown) => void = () => {};
    const port: FramePort = {
        send,
        onFrame: (listener) => {
            deliver = listener;
            return () => (deliver = () => {});
        },
    };
    return { port, deliver: (frame: unknown) => deliver(frame) };
}

test('a send that throws rejects with send-failed and leaves nothing waiting', async () => {
    const { port, deliver } = syncPort(() => {
        throw new Error('the socket is closed');
    });
    const invalid: string[] = [];
    const c = createAgentClient(port, { onInvalidFrame: (m) => invalid.push(m) });
    // A promise, not a synchronous throw.
    const p = c.request('chat.send', { chatId: 'c', text: 'x' });
    await assert.rejects(p, (e: unknown) => {
        assert.ok(e instanceof RequestError);
        assert.equal(e.code, 'send-failed');
        assert.match(e.message, /the socket is closed/);
        return true;
    });
    // A late reply to that id finds no request waiting.
    deliver({ id: '1', ok: true, result: { queued: false } });
    assert.deepEqual(invalid, ['no request has the id 1']);
    // A throwing `newId` is a rejection too.
    const ids = createAgentClient(syncPort(() => {}).port, {
        newId: () => {
            throw new Error('no ids left');
        },
    });
    await assert.rejects(ids.request('chat.send', { chatId: 'c', text: 'x' }), { code: 'send-failed', message: 'chat.send could not be sent: no ids left' });
    c.close();
    ids.close();
});

test('a throwing listener stops neither the others nor the port, and is reported', () => {
    const { port, deliver } = syncPort(() => {});
    const errors: [unknown, string][] = [];
    const c = createAgentClient(port, { onListenerError: (e, event) => errors.push([e, event]) });
    const got: number[] = [];
    const boom = new Error('listener failed');
    c.on('usage.changed', () => {
        throw boom;
    });
    c.on('usage.changed', (p) => got.push(p.scannedAt));
    deliver({ type: 'event', event: 'usage.changed', payload: { scannedAt: 5 } });
    assert.deepEqual(got, [5]);
    assert.deepEqual(errors, [[boom, 'usage.changed']]);
    c.close();
});

test('without onListenerError, the first throw of an event is thrown again in a microtask', () => {
    const { port, deliver } = syncPort(() => {});
    const c = createAgentClient(port);
    const got: number[] = [];
    const first = new Error('first');
    c.on('usage.changed', () => {
        throw first;
    });
    c.on('usage.changed', () => {
        throw new Error('second');
    });
    c.on('usage.changed', (p) => got.push(p.scannedAt));
    // The microtasks are caught here, so that the test runner does not see an uncaught exception.
    const queued: (() => void)[] = [];
    const queueMicrotask = globalThis.queueMicrotask;
    globalThis.queueMicrotask = (task) => queued.push(task);
    try {
        deliver({ type: 'event', event: 'usage.changed', payload: { scannedAt: 5 } });
    } finally {
        globalThis.queueMicrotask = queueMicrotask;
    }
    assert.deepEqual(got, [5]);
    assert.equal(queued.length, 1);
    assert.throws(() => queued[0]!(), (e: unknown) => e === first);
    c.close();
});

test('a name that is only an Object.prototype key is no table entry: sent, and the host refuses it', async () => {
    const [client, host] = createPortPair();
    const h = fakeHost(host);
    const c = createAgentClient(client);
    for (const name of ['toString', '__proto__', 'constructor']) {
        await assert.rejects(c.request(name as never, {} as never), (e: unknown) => {
            assert.ok(e instanceof RequestError);
            assert.equal(e.code, 'unknown-request', name);
            return true;
        });
    }
    assert.deepEqual(h.seen, ['toString', '__proto__', 'constructor']);
    c.close();
});
