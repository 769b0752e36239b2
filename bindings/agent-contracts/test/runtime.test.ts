// The runtime (`src/runtime/`, exported as `@adecore/agent-contracts/runtime`) on its own:
// parseWith never throws and answers Zod's verdict, a pick's variant first and the union when it
// refuses; the refusal of an unknown table name worded as the Rust side words it; the limits'
// parameters checking a length only on a value of their type. And the root re-exports the
// runtime's parse names, the same functions.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import * as runtime from '../src/runtime/index.js';
import { MAX_ISSUES, noTableEntry, onArray, onString, parseWith, quoteName } from '../src/runtime/index.js';
import * as root from '../src/index.js';

test('parseWith answers the value or the prettified message', () => {
    const schema = z.object({ n: z.int() });
    assert.deepEqual(parseWith(schema, { n: 1, extra: true }), { ok: true, value: { n: 1 } });
    const bad = parseWith(schema, { n: 1.5 });
    assert.equal(bad.ok, false);
    if (!bad.ok) assert.equal(bad.message, z.prettifyError(z.safeParse(schema, { n: 1.5 }).error!));
});

test('a refusal names at most MAX_ISSUES issues, the first Zod found, then the count of the rest', () => {
    const schema = z.object({ a: z.string(), items: z.array(z.object({ x: z.string() })) });
    const message = (n: number) => {
        const r = parseWith(schema, { items: Array.from({ length: n }, () => ({})) });
        assert.equal(r.ok, false);
        return r.ok ? '' : r.message;
    };
    const issueLines = (m: string) => m.split('\n').filter((l) => l.startsWith('✖ '));
    // `a` and 99 items: every issue shown, as Zod shows them.
    const all = message(MAX_ISSUES - 1);
    assert.equal(issueLines(all).length, MAX_ISSUES);
    assert.equal(all, z.prettifyError(z.safeParse(schema, { items: Array.from({ length: MAX_ISSUES - 1 }, () => ({})) }).error!));
    // `a` and 100 items: `a` and items[0] to [98] shown, shortest path first, one counted.
    const one = message(MAX_ISSUES);
    assert.equal(issueLines(one).length, MAX_ISSUES + 1);
    assert.ok(one.startsWith('✖ Invalid input: expected string, received undefined\n  → at a\n'));
    assert.ok(one.includes('  → at items[98].x\n'));
    assert.ok(!one.includes('items[99]'));
    assert.ok(one.endsWith('\n✖ and 1 more issue'));
    assert.ok(message(100_000).endsWith('\n✖ and 99901 more issues'));
});

test('parseWith never throws, whatever the input', () => {
    const hostile = new Proxy({}, {
        get() {
            throw new Error('hostile getter');
        },
        getPrototypeOf() {
            throw new Error('hostile prototype');
        },
    });
    const r = parseWith(z.object({ n: z.int() }), hostile);
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.message, /hostile/);
    const throwing = z.string().transform(() => {
        throw new Error('from a transform');
    });
    assert.deepEqual(parseWith(throwing, 'x'), { ok: false, message: 'from a transform' });
});

test("parseWith takes the pick's variant when it accepts, the union's verdict when not", () => {
    const ok = z.object({ ok: z.literal(true), result: z.string() });
    const event = z.object({ event: z.string() });
    const union = z.union([ok, event]);
    const picked: z.ZodType[] = [];
    const pick = (input: unknown) => {
        const v = typeof input === 'object' && input !== null && 'ok' in input ? ok : event;
        picked.push(v);
        return v;
    };
    assert.deepEqual(parseWith(union, { event: 'e' }, pick), { ok: true, value: { event: 'e' } });
    assert.deepEqual(picked, [event]);
    // The picked variant refuses: the union runs, for its own message.
    const refused = parseWith(union, { ok: true, result: 1 }, pick);
    assert.equal(refused.ok, false);
    if (!refused.ok) assert.equal(refused.message, z.prettifyError(z.safeParse(union, { ok: true, result: 1 }).error!));
    // A pick that throws is passed over: the union answers.
    const throws = () => {
        throw new Error('pick');
    };
    assert.deepEqual(parseWith(union, { event: 'e' }, throws), { ok: true, value: { event: 'e' } });
    // No variant picked: the union alone.
    assert.deepEqual(parseWith(union, { event: 'e' }, () => undefined), { ok: true, value: { event: 'e' } });
});

test('an unknown table name is quoted as JSON, a lone surrogate as U+FFFD', () => {
    assert.equal(noTableEntry('chat.nope'), 'no table entry is called "chat.nope"');
    assert.equal(quoteName('a"b'), '"a\\"b"');
    assert.equal(quoteName('\ud800x'), '"\ufffdx"');
    assert.equal(quoteName('x\udc00'), '"x\ufffd"');
    // A pair is one code point, kept.
    assert.equal(quoteName('\ud83d\ude00'), '"\ud83d\ude00"');
});

test('a limit is checked only on a value of its type', () => {
    const text = z.string().max(2, onString);
    assert.equal(z.safeParse(text, 'ab').success, true);
    assert.equal(z.safeParse(text, 'abc').success, false);
    // An array or an object with a `length` is refused for its type alone.
    for (const input of [[1, 2, 3], { length: 5 }, { length: 'x' }]) {
        const r = z.safeParse(text, input);
        assert.equal(r.success, false);
        assert.deepEqual(r.error!.issues.map((i) => i.code), ['invalid_type']);
    }
    const list = z.array(z.int()).min(1, onArray);
    assert.equal(z.safeParse(list, [1]).success, true);
    assert.equal(z.safeParse(list, []).success, false);
    const r = z.safeParse(list, '');
    assert.deepEqual(r.error!.issues.map((i) => i.code), ['invalid_type']);
});

test("the root re-exports the runtime's parse names, the same functions", () => {
    assert.equal(root.parseWith, runtime.parseWith);
    assert.equal(root.noTableEntry, runtime.noTableEntry);
    assert.equal(root.quoteName, runtime.quoteName);
});

test('dispatchTyped answers with JSON-RPC codes and the Rust dispatcher\'s messages', async () => {
    const table = {
        'tools/call': { payload: z.object({ name: z.string().min(1) }), result: z.object({ text: z.string() }) },
        'sampling/create': { payload: z.object({ prompt: z.string() }), result: z.object({ reply: z.string() }) },
        ping: { payload: z.object({}), result: z.object({}) },
    } as const;
    const receives = (name: string) => name !== 'sampling/create';
    const handlers = {
        'tools/call': async (p: { name: string }, context: runtime.RpcHandlerContext) => {
            if (p.name === 'aborted') throw context.signal.reason;
            return p.name === 'bad' ? { text: 7 } : { text: `ran ${p.name}` };
        },
    };
    const d = (method: string, params: unknown) => runtime.dispatchTyped(table, receives, handlers as never, method, params);
    assert.deepEqual(await d('tools/call', { name: 'x' }), { ok: true, result: { text: 'ran x' } });
    assert.deepEqual(await d('nope', {}), { ok: false, error: { code: -32601, message: 'method not found: nope' } });
    assert.deepEqual(await d('sampling/create', { prompt: 'p' }), { ok: false, error: { code: -32601, message: 'method not found: sampling/create' } });
    assert.deepEqual(await d('ping', undefined), { ok: false, error: { code: -32601, message: 'method not found: ping is not supported' } });
    assert.deepEqual(await d('tools/call', { name: '' }), {
        ok: false,
        error: { code: -32602, message: '✖ Too small: expected string to have >=1 characters\n  → at name' },
    });
    assert.deepEqual(await d('tools/call', undefined), {
        ok: false,
        error: { code: -32602, message: '✖ Invalid input: expected string, received undefined\n  → at name' },
    });
    const bad = await d('tools/call', { name: 'bad' });
    assert.equal(bad.ok, false);
    if (!bad.ok) {
        assert.equal(bad.error.code, -32603);
        assert.ok(bad.error.message.startsWith("the host's result of tools/call is not valid, so it was not sent: "));
    }
    // The handler is told the context; a DOMException (an abort's reason) is no RpcFailure, for
    // all its numeric legacy `code`: -32603 with its message.
    const stopped = new AbortController();
    stopped.abort(new DOMException('stopped by the caller', 'AbortError'));
    assert.deepEqual(await runtime.dispatchTyped(table, receives, handlers as never, 'tools/call', { name: 'aborted' }, { signal: stopped.signal }), {
        ok: false,
        error: { code: -32603, message: 'stopped by the caller' },
    });
    // A typed call reads the result by the table, and throws on one it refuses.
    const call = { request: async () => ({ text: 7 }), notify: async () => {} };
    await assert.rejects(runtime.callTyped(table, call, 'tools/call', { name: 'x' }), (e: unknown) => e instanceof runtime.InvalidResultError && e.method === 'tools/call');
    const heard: string[] = [];
    const listeners = { progress: (p: { done: number }) => heard.push(`done ${p.done}`) };
    const events = { progress: z.object({ done: z.int() }), log: z.object({ line: z.string() }) };
    assert.deepEqual(runtime.notifyTyped(events, (n) => n !== 'log', listeners as never, 'progress', { done: 2 }), { ok: true, heard: true });
    assert.deepEqual(runtime.notifyTyped(events, (n) => n !== 'log', listeners as never, 'log', { line: 'x' }), { ok: true, heard: false });
    assert.equal(runtime.notifyTyped(events, (n) => n !== 'log', listeners as never, 'progress', { done: 1.5 }).ok, false);
    assert.deepEqual(heard, ['done 2']);
});
