// Type-level tests: the spec's example type-checks and gives the precise payload type. If a
// line here stops compiling, `npm run build` fails.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import {
    AGENT_EVENT_SCHEMAS,
    AGENT_REQUEST_SCHEMAS,
    createAgentClient,
    parseRequest,
    parseRequestTyped,
    parseServerFrameTyped,
    type AgentEventType,
    type AgentRequestPayload,
    type AgentRequestResult,
    type AgentRequestType,
    type ChatSendPayload,
    type ChatStatusEvent,
    type EventTyped,
    type FramePort,
    type ParseResult,
    type ReplyError,
    type ReplyOk,
    type Request,
    type RequestTyped,
    type ServerFrameTyped,
    type TypedParseResult,
    type WireError,
} from '@adecore/agent-contracts';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(_: T): void {}

test("the spec's example", () => {
    const incoming: unknown = { id: '1', type: 'chat.send', payload: { chatId: 'c', text: 'hi' } };
    const frame = parseRequest(incoming);
    if (!frame.ok) {
        throw new Error(frame.message);
    }
    if (frame.value.type === 'chat.send') {
        const payload = AGENT_REQUEST_SCHEMAS['chat.send'].payload.parse(frame.value.payload);
        expectType<Equal<typeof payload, ChatSendPayload>>(true);
        expectType<Equal<typeof payload.text, string>>(true);
        assert.equal(payload.text, 'hi');
    }
    expectType<Equal<typeof frame, { ok: true; value: Request }>>(true);
});

test('the table types', () => {
    expectType<Equal<AgentRequestPayload<'chat.send'>, ChatSendPayload>>(true);
    expectType<Equal<AgentRequestResult<'chat.send'>, { queued: boolean }>>(true);
    const r: AgentRequestType = 'chat.history';
    const e: AgentEventType = 'chat.event';
    // @ts-expect-error: not a request name
    const bad: AgentRequestType = 'chat.nope';
    assert.ok(r && e && bad);
    expectType<Equal<ReturnType<typeof parseRequest>, ParseResult<Request>>>(true);
    expectType<Equal<WireError['message'], string>>(true);
});

test('an app composes the tables', () => {
    const requests = {
        ...AGENT_REQUEST_SCHEMAS,
        'document.read': { payload: z.object({ id: z.string().min(1) }), result: z.object({ text: z.string() }) },
    };
    const events = { ...AGENT_EVENT_SCHEMAS, 'document.changed': z.object({ id: z.string().min(1) }) };
    expectType<Equal<z.output<(typeof requests)['chat.send']['payload']>, ChatSendPayload>>(true);
    assert.equal(Object.keys(requests).length, 42);
    assert.equal(Object.keys(events).length, 9);
});

test('FramePort is the spec interface', () => {
    const port: FramePort = { send(_frame) {}, onFrame(_l) { return () => {}; } };
    port.send({ id: '1', type: 'chat.list', payload: {} });
    port.send({ type: 'event', event: 'chat.status', payload: {} });
    assert.ok(port);
});

test('a typed frame narrows its payload by name', () => {
    const r = parseRequestTyped({ id: '1', type: 'chat.send', payload: { chatId: 'c', text: 'hi' } });
    expectType<Equal<typeof r, TypedParseResult<RequestTyped>>>(true);
    if (!r.ok) {
        expectType<Equal<typeof r.stage, 'envelope' | 'table'>>(true);
        throw new Error(r.message);
    }
    const frame = r.value;
    if (frame.type === 'chat.send') {
        expectType<Equal<typeof frame.payload, ChatSendPayload>>(true);
        assert.equal(frame.payload.text, 'hi');
    } else {
        assert.fail('chat.send');
    }
    // @ts-expect-error: not a request name
    const bad: RequestTyped['type'] = 'chat.nope';
    assert.ok(bad);

    const s = parseServerFrameTyped({ type: 'event', event: 'chat.status', payload: {} });
    expectType<Equal<typeof s, TypedParseResult<ServerFrameTyped>>>(true);
    expectType<Equal<ServerFrameTyped, ReplyOk | ReplyError | EventTyped>>(true);
    if (s.ok && !('ok' in s.value) && s.value.event === 'chat.status') {
        expectType<Equal<typeof s.value.payload, ChatStatusEvent>>(true);
    }
});

test('the typed client: requests, results and listeners typed by name', async () => {
    const port: FramePort = { send() {}, onFrame() { return () => {}; } };
    const c = createAgentClient(port);
    const ignore = () => {};
    const sent = c.request('chat.send', { chatId: 'c', text: 'hi' });
    expectType<Equal<Awaited<typeof sent>, AgentRequestResult<'chat.send'>>>(true);
    // @ts-expect-error: not a request name
    c.request('chat.nope', {}).catch(ignore);
    // @ts-expect-error: chat.send needs its text
    c.request('chat.send', { chatId: 'c' }).catch(ignore);
    // @ts-expect-error: text is a string
    c.request('chat.send', { chatId: 'c', text: 1 }).catch(ignore);
    const stop = c.on('chat.status', (payload) => {
        expectType<Equal<typeof payload, ChatStatusEvent>>(true);
    });
    // @ts-expect-error: not an event name
    c.on('chat.nope', ignore);
    // @ts-expect-error: a chat.status listener does not take a chat.event payload
    c.on('chat.event', (payload: ChatStatusEvent) => assert.ok(payload));
    stop();
    c.close();
    await assert.rejects(sent);
});
