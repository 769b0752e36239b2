// The thread reducer and reconnect-by-since, over the typed client and a fake host that keeps a
// chat's event log.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
    ChatThread,
    applyChatEvent,
    createAgentClient,
    createPortPair,
    parseRequest,
    seqEpoch,
    threadFromAttach,
    type AttachResult,
    type ChatEvent,
    type ChatInfo,
    type ChatItem,
    type FramePort,
} from '@adecore/agent-contracts';

const info = (title: string): ChatInfo => ({
    chatId: 'c1',
    title,
    state: 'idle',
    provider: 'claude',
    createdAt: 1,
    updatedAt: 1,
    queued: [],
    requests: [],
});
const reply = (id: string, text: string, historyIndex?: number): ChatItem => ({
    kind: 'reply',
    id,
    text,
    createdAt: 1,
    ...(historyIndex !== undefined ? { historyIndex } : {}),
});
const texts = (items: ChatItem[]) => items.map((i) => ('text' in i ? `${i.id}:${i.text}` : i.id));

test('item inserts or replaces by id, placed by historyIndex', () => {
    let s = threadFromAttach({ info: info('a'), items: [reply('a', 'A', 0), reply('c', 'C', 2)], seq: 1 });
    s = applyChatEvent(s, { type: 'item', item: reply('b', 'B', 1) }, 2);
    assert.deepEqual(texts(s.items), ['a:A', 'b:B', 'c:C']);
    s = applyChatEvent(s, { type: 'item', item: reply('b', 'B2', 1) }, 3);
    assert.deepEqual(texts(s.items), ['a:A', 'b:B2', 'c:C']);
    s = applyChatEvent(s, { type: 'item', item: reply('d', 'D') }, 4);
    assert.deepEqual(texts(s.items), ['a:A', 'b:B2', 'c:C', 'd:D']);
    assert.equal(s.seq, 4);
});

test('delta appends, info replaces, reset replaces all, an old seq is skipped', () => {
    let s = threadFromAttach({ info: info('a'), items: [reply('r', 'Hel')], seq: 10 });
    s = applyChatEvent(s, { type: 'delta', itemId: 'r', text: 'lo' }, 11);
    assert.deepEqual(texts(s.items), ['r:Hello']);
    s = applyChatEvent(s, { type: 'delta', itemId: 'r', text: 'lo' }, 11);
    assert.deepEqual(texts(s.items), ['r:Hello'], 'seq 11 was applied already');
    s = applyChatEvent(s, { type: 'info', info: info('b') }, 12);
    assert.equal(s.info.title, 'b');
    s = applyChatEvent(s, { type: 'reset', info: info('c'), items: [] }, 13);
    assert.deepEqual(s.items, []);
    assert.equal(s.info.title, 'c');
    const tool: ChatItem = { kind: 'tool', id: 't', toolUseId: 'u', name: 'bash', input: {}, status: 'running' };
    s = applyChatEvent(applyChatEvent(s, { type: 'item', item: tool }), { type: 'delta', itemId: 't', text: 'out' });
    assert.equal((s.items[0] as { output?: string }).output, 'out');
});

/**
 * A host with one chat and an event log; `keep.all` says whether it still holds events after a
 * seq, `keep.flag` whether its resumed answer says `resumed: true` (false: a host that predates
 * the flag, answering only as the spec words it, with an empty `items`).
 */
function host(port: FramePort, keep: { all: boolean; flag?: boolean }) {
    const log: { seq: number; event: ChatEvent }[] = [];
    let items: ChatItem[] = [reply('r0', 'start', 0)];
    const attaches: unknown[] = [];
    const emit = (event: ChatEvent) => {
        const seq = log.length + 1;
        log.push({ seq, event });
        if (event.type === 'item') items = [...items.filter((i) => i.id !== event.item.id), event.item];
        port.send({ type: 'event', event: 'chat.event', payload: { chatId: 'c1', event, seq } });
    };
    port.onFrame((raw) => {
        const f = parseRequest(raw);
        if (!f.ok || f.value.type !== 'chat.attach') return;
        const payload = f.value.payload as { since?: number };
        attaches.push(payload);
        const since = payload.since;
        if (since !== undefined && keep.all) {
            const result: AttachResult = { info: info('t'), items: [], seq: log.length, ...(keep.flag === false ? {} : { resumed: true }) };
            port.send({ id: f.value.id, ok: true, result });
            for (const e of log.filter((e) => e.seq > since)) {
                port.send({ type: 'event', event: 'chat.event', payload: { chatId: 'c1', event: e.event, seq: e.seq } });
            }
        } else {
            const result: AttachResult = { info: info('t'), items, seq: log.length };
            port.send({ id: f.value.id, ok: true, result });
        }
    });
    return { emit, attaches };
}

const settle = () => new Promise((r) => setTimeout(r, 10));

test('delta grows replies, thoughts and tool output only', () => {
    const user: ChatItem = { kind: 'user', id: 'u', text: 'hi', createdAt: 1 };
    let s = threadFromAttach({ info: info('a'), items: [user, reply('r', 'a')], seq: 1 });
    s = applyChatEvent(s, { type: 'delta', itemId: 'u', text: '!' }, 2);
    s = applyChatEvent(s, { type: 'delta', itemId: 'r', text: 'b' }, 3);
    assert.deepEqual(texts(s.items), ['u:hi', 'r:ab']);
});

for (const flag of [true, false]) {
    const how = flag ? 'resumed: true' : 'a host without the resumed flag: an empty items after since';
    test(`reconnect sends since and resumes from the missed events (${how})`, async () => {
        const [client, hostPort] = createPortPair();
        const h = host(hostPort, { all: true, flag });
        const c = createAgentClient(client);
        const thread = new ChatThread(c, 'c1');
        await thread.attach();
        h.emit({ type: 'item', item: reply('r1', 'one', 1) });
        await settle();
        assert.deepEqual(texts(thread.state!.items), ['r0:start', 'r1:one']);
        // The connection drops: the client stops listening, events are missed.
        thread.dispose();
        h.emit({ type: 'item', item: reply('r2', 'two', 2) });
        await settle();
        const again = new ChatThread(c, 'c1', { state: thread.state! });
        await again.attach();
        await settle();
        assert.deepEqual(h.attaches, [{ chatId: 'c1' }, { chatId: 'c1', since: 1 }]);
        assert.deepEqual(texts(again.state!.items), ['r0:start', 'r1:one', 'r2:two']);
        assert.equal(again.state!.seq, 2);
        c.close();
    });
}

test('threadFromAttach: resumed only after a since; the flag decides, else an empty items', () => {
    const previous = threadFromAttach({ info: info('a'), items: [reply('a', 'A')], seq: 3 });
    const kept = (r: AttachResult) => texts(threadFromAttach(r, previous).items);
    assert.deepEqual(kept({ info: info('b'), items: [], seq: 3, resumed: true }), ['a:A']);
    assert.deepEqual(kept({ info: info('b'), items: [], seq: 3 }), ['a:A'], 'no flag, empty items: resumed');
    assert.deepEqual(kept({ info: info('b'), items: [], seq: 9, resumed: false }), [], 'a snapshot of an empty chat');
    assert.deepEqual(kept({ info: info('b'), items: [reply('z', 'Z')], seq: 9 }), ['z:Z'], 'no flag, items: a snapshot');
    assert.deepEqual(kept({ info: info('b'), items: [], seq: 0 }), [], 'no flag, a seq below since: a chat that started over');
    assert.equal(threadFromAttach({ info: info('b'), items: [], seq: 0 }, previous).seq, 0);
    // Without a since (the previous thread has no seq), never resumed.
    const unsent = threadFromAttach({ info: info('a'), items: [reply('a', 'A')] });
    assert.deepEqual(texts(threadFromAttach({ info: info('b'), items: [] }, unsent).items), []);
});

test('threadFromAttach: never resumed across epochs, whatever the host says', () => {
    const epoch = (e: number, n: number) => e * 2 ** 32 + n;
    assert.equal(seqEpoch(epoch(7, 12)), 7);
    const previous = threadFromAttach({ info: info('a'), items: [reply('a', 'A')], seq: epoch(7, 12) });
    const answer = (seq: number): AttachResult => ({ info: info('b'), items: [reply('z', 'Z')], seq, resumed: true });
    // Another epoch (another chat, or a host that lost it), even with a larger seq: a snapshot.
    assert.deepEqual(texts(threadFromAttach(answer(epoch(8, 20)), previous).items), ['z:Z']);
    assert.equal(threadFromAttach(answer(epoch(8, 20)), previous).seq, epoch(8, 20));
    // Below the since: a snapshot.
    assert.deepEqual(texts(threadFromAttach(answer(epoch(7, 3)), previous).items), ['z:Z']);
    // The same epoch, not below: resumed, the thread kept.
    assert.deepEqual(texts(threadFromAttach(answer(epoch(7, 15)), previous).items), ['a:A']);
});

test('reconnect replaces the thread with a snapshot when the host no longer holds the events', async () => {
    const [client, hostPort] = createPortPair();
    const h = host(hostPort, { all: false });
    const c = createAgentClient(client);
    const thread = new ChatThread(c, 'c1');
    await thread.attach();
    h.emit({ type: 'item', item: reply('r1', 'one', 1) });
    await settle();
    h.emit({ type: 'item', item: reply('r2', 'two', 2) });
    await thread.attach();
    await settle();
    assert.deepEqual(h.attaches, [{ chatId: 'c1' }, { chatId: 'c1', since: 1 }]);
    assert.deepEqual(texts(thread.state!.items), ['r0:start', 'r1:one', 'r2:two'], 'replaced, not appended');
    c.close();
});
