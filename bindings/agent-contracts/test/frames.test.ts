// The package as a client uses it: envelope and table parsing, with the exact messages of
// docs/wire-semantics.md.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
    AGENT_EVENT_SCHEMAS,
    AGENT_REQUEST_SCHEMAS,
    ChatSubagentItemSchema,
    EmptySchema,
    ErrorSchema,
    EventSchema,
    ReplyErrorSchema,
    ReplyOkSchema,
    ReplySchema,
    RequestSchema,
    ServerFrameSchema,
    WireErrorSchema,
    parseAgentRequestPayload,
    parseRequest,
    parseServerFrame,
} from '@adecore/agent-contracts';
import { TaskChangedEventSchema } from '@adecore/agent-contracts/task';
import { TerminalAgentStateSchema, TerminalAgentStatusSchema } from '@adecore/agent-contracts/agent';
import { createRequire } from 'node:module';

/** The message of a refused parse. */
function refused(r: { ok: true } | { ok: false; message: string }): string {
    assert.equal(r.ok, false, 'expected a refusal');
    return (r as { message: string }).message;
}

const payloadOf = (type: keyof typeof AGENT_REQUEST_SCHEMAS, payload: unknown) => parseAgentRequestPayload(type, payload);

test('the spec surface is exported', () => {
    for (const s of [RequestSchema, ReplySchema, ReplyOkSchema, ReplyErrorSchema, EventSchema, ServerFrameSchema, ErrorSchema, EmptySchema, ChatSubagentItemSchema, TaskChangedEventSchema]) {
        assert.equal(typeof s.safeParse, 'function');
    }
    assert.equal(ErrorSchema, WireErrorSchema);
    assert.equal(Object.keys(AGENT_REQUEST_SCHEMAS).length, 41);
    assert.equal(Object.keys(AGENT_EVENT_SCHEMAS).length, 8);
});

test('the subpaths resolve by the package name: ./agent, ./task, ./schema.json, ./package.json', () => {
    assert.equal(TerminalAgentStateSchema.safeParse('working').success, true);
    assert.equal(TerminalAgentStateSchema.safeParse('asleep').success, false);
    assert.equal(typeof TerminalAgentStatusSchema.safeParse, 'function');
    assert.equal(typeof TaskChangedEventSchema.safeParse, 'function');
    const require = createRequire(import.meta.url);
    const schema = require('@adecore/agent-contracts/schema.json') as { $schema: string; $defs: Record<string, unknown> };
    assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
    assert.ok('ServerFrame' in schema.$defs && 'TerminalAgentStatus' in schema.$defs);
    const pkg = require('@adecore/agent-contracts/package.json') as { name: string; exports: Record<string, unknown> };
    assert.equal(pkg.name, '@adecore/agent-contracts');
    // The `types` condition first: resolvers take the first condition that matches.
    for (const [path, target] of Object.entries(pkg.exports)) {
        if (typeof target === 'object' && target !== null) assert.equal(Object.keys(target)[0], 'types', path);
    }
});

test('parseRequest: a request frame, unknown names and keys included', () => {
    const r = parseRequest({ id: '1', type: 'no.such.request', payload: null, extra: true });
    assert.deepEqual(r, { ok: true, value: { id: '1', type: 'no.such.request', payload: null } });
});

test('parseRequest: empty id, absent payload', () => {
    assert.equal(
        refused(parseRequest({ id: '', type: 'chat.send' })),
        '✖ Too small: expected string to have >=1 characters\n  → at id\n✖ Invalid input: expected nonoptional, received undefined\n  → at payload',
    );
    assert.equal(refused(parseRequest('nope')), '✖ Invalid input: expected object, received string');
});

test('parse functions never throw', () => {
    const hostile = new Proxy({}, { get() { throw new Error('boom'); }, has() { throw new Error('boom'); }, ownKeys() { throw new Error('boom'); } });
    assert.equal(parseRequest(hostile).ok, false);
    assert.equal(parseServerFrame(hostile).ok, false);
});

test('parseServerFrame: success, failure with a null id, event, neither', () => {
    assert.equal(parseServerFrame({ id: '1', ok: true, result: null }).ok, true);
    assert.equal(parseServerFrame({ id: null, ok: false, error: { code: 'unreadable-frame', message: 'x' } }).ok, true);
    assert.equal(parseServerFrame({ id: '1', ok: false, error: { code: 'some-app-code', message: 'x' } }).ok, true, 'the error codes are open');
    assert.equal(parseServerFrame({ type: 'event', event: 'chat.status', payload: {} }).ok, true);
    assert.equal(refused(parseServerFrame({ id: '1', ok: true })), '✖ Invalid input');
});

test('optional is never null; nullable must be present', () => {
    assert.equal(
        refused(payloadOf('chat.attach', { chatId: 'c', since: null })),
        '✖ Invalid input: expected number, received null\n  → at since',
    );
    assert.equal(parseServerFrame({ id: null, ok: false, error: { code: 'x', message: '' } }).ok, true);
    assert.equal(refused(ReplyErrorSchema.safeParse({ ok: false, error: { code: 'x', message: '' } }).success ? { ok: true } : { ok: false, message: 'refused' }), 'refused');
});

test('int: integral values in the safe range', () => {
    assert.equal(payloadOf('chat.attach', JSON.parse('{"chatId":"c","since":1e2}')).ok, true);
    assert.equal(payloadOf('chat.attach', JSON.parse('{"chatId":"c","since":100.0}')).ok, true);
    assert.equal(refused(payloadOf('chat.attach', { chatId: 'c', since: 100.5 })), '✖ Invalid input: expected int, received number\n  → at since');
    assert.equal(refused(payloadOf('chat.attach', { chatId: 'c', since: '100' })), '✖ Invalid input: expected number, received string\n  → at since');
    assert.equal(refused(payloadOf('chat.attach', JSON.parse('{"chatId":"c","since":9007199254740992}'))), '✖ Too big: expected int to be <=9007199254740991\n  → at since');
    assert.equal(refused(payloadOf('chat.attach', { chatId: 'c', historyLimit: 0 })), '✖ Too small: expected number to be >=1\n  → at historyLimit');
    assert.equal(refused(payloadOf('chat.attach', { chatId: 'c', historyLimit: 101 })), '✖ Too big: expected number to be <=100\n  → at historyLimit');
});

test('string limits count code points', () => {
    assert.equal(payloadOf('chat.history', { chatId: 'c', cursor: '😀'.repeat(128) }).ok, true);
    assert.equal(
        refused(payloadOf('chat.history', { chatId: 'c', cursor: 'x'.repeat(129) })),
        '✖ Too big: expected string to have <=128 characters\n  → at cursor',
    );
});

test('tagged unions and enums are closed; the legacy origin is read and written back', () => {
    const event = AGENT_EVENT_SCHEMAS['chat.event'];
    const bad = event.safeParse({ chatId: 'c', event: { type: 'nope' } });
    assert.equal(bad.success, false);
    assert.match(JSON.stringify(bad.error!.issues), /Invalid discriminator value/);
    const item = { id: 'i', toolUseId: 't', description: 'd', origin: 'host-task', status: 'running' };
    const parsed = ChatSubagentItemSchema.parse(item);
    assert.deepEqual(parsed, item);
    const r = ChatSubagentItemSchema.safeParse({ ...item, origin: 'nope' });
    assert.equal(r.success, false);
    assert.match(r.error!.issues[0]!.message, /^Invalid option: expected one of "chat"\|"host-task"$/);
});
