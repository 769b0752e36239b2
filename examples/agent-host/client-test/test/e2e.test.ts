// The example agent host end to end from node: the package's typed client and ChatThread over
// a WebSocket FramePort. Run by examples/agent-host/tests/node.rs, which starts the host and
// passes its url in AGENT_HOST_URL and its client token in AGENT_HOST_TOKEN; without a url the
// tests skip, saying so.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChatThread, RequestError, createAgentClient, type ThreadState } from '@adecore/agent-contracts';
import { connectPort } from '../src/ws-port.js';

const url = process.env.AGENT_HOST_URL;
const token = process.env.AGENT_HOST_TOKEN;
const skip = url ? false : 'AGENT_HOST_URL is not set: run `cargo test -p agent-host --test node`';
const LIMIT_MS = 20_000;

/** A thread whose changes can be awaited. */
function watched(client: ReturnType<typeof createAgentClient>, chatId: string, state?: ThreadState) {
    let wake: () => void = () => {};
    const thread = new ChatThread(client, chatId, { state, onChange: () => wake() });
    /** Resolves once `done` holds for the thread's state. */
    const until = (done: (s: ThreadState) => boolean, what: string) =>
        new Promise<ThreadState>((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), LIMIT_MS);
            const check = () => {
                const s = thread.state;
                if (s && done(s)) {
                    clearTimeout(timer);
                    wake = () => {};
                    resolve(s);
                }
            };
            wake = check;
            check();
        });
    return { thread, until };
}

/** The turn for `text` is over: its reply is whole and the chat idle. */
const replied = (text: string) => (s: ThreadState) =>
    s.info.state === 'idle' && s.items.some((i) => i.kind === 'reply' && i.text === `echo: ${text}` && i.streaming === false);

async function open() {
    const { port, socket } = await connectPort(url!, token);
    const client = createAgentClient(port);
    // Answered only once the host registered this connection.
    await client.request('chat.list', {});
    return { port, socket, client };
}

test('attach, send, receive events, reconnect with since', { skip, timeout: 4 * LIMIT_MS }, async () => {
    const a = await open();
    const statuses: string[] = [];
    a.client.on('chat.status', (s) => statuses.push(s.info.state));
    const { chatId } = await a.client.request('chat.create', { title: 'from node' });
    const first = watched(a.client, chatId);
    const attached = await first.thread.attach();
    assert.deepEqual(attached.items, []);
    // A new chat's seq is the first of its epoch (the part above 2^32).
    assert.equal(attached.seq! % 2 ** 32, 0);
    assert.ok(attached.seq! >= 2 ** 32, 'the chat has an epoch');

    const sent = await a.client.request('chat.send', { chatId, text: 'hi from node' });
    assert.equal(sent.queued, false);
    const afterFirst = await first.until(replied('hi from node'), 'the first reply');
    assert.deepEqual(afterFirst.items.map((i) => i.kind), ['user', 'reply']);
    // chat.status is coalesced per chat: the running one may be replaced before it is sent.
    assert.ok(statuses.includes('idle'), `chat.status seen: ${statuses}`);
    const leftAt = afterFirst.seq!;
    assert.ok(leftAt > attached.seq!);
    first.thread.dispose();
    a.client.close();
    a.socket.close();

    // While the first connection is gone, another one talks.
    const b = await open();
    const other = watched(b.client, chatId);
    await other.thread.attach();
    await b.client.request('chat.send', { chatId, text: 'missed' });
    const host = await other.until(replied('missed'), 'the missed reply');

    // Reconnect with the kept thread: the host resumes and replays what was missed.
    const c = await open();
    let resumed: unknown;
    c.port.onFrame((f) => {
        const frame = f as { ok?: boolean; result?: { resumed?: boolean } };
        if (frame.ok === true && frame.result && 'resumed' in frame.result) resumed = frame.result.resumed;
    });
    const again = watched(c.client, chatId, afterFirst);
    await again.thread.attach();
    assert.equal(resumed, true, 'the host answered resumed: the thread was kept');
    const caughtUp = await again.until((s) => s.seq === host.seq, 'the missed events');
    assert.deepEqual(caughtUp.items, host.items, 'nothing duplicated, nothing lost');
    assert.deepEqual(caughtUp.items.map((i) => i.kind), ['user', 'reply', 'user', 'reply']);

    // A refusal rejects with the host's WireError and the connection keeps working.
    await assert.rejects(c.client.request('chat.history', { chatId, cursor: 'no-such-cursor' }), (e: unknown) => {
        assert.ok(e instanceof RequestError);
        assert.equal(e.code, 'history-expired');
        return true;
    });
    await assert.rejects(c.client.request('chat.fork', { chatId, itemId: 'x' }), { code: 'chat-unsupported' });
    const list = await c.client.request('chat.list', {});
    assert.ok(list.chats.some((chat) => chat.chatId === chatId));

    for (const x of [b, c]) {
        x.client.close();
        x.socket.close();
    }
    other.thread.dispose();
    again.thread.dispose();
});
