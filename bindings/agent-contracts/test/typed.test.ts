// The typed frames (parseRequestTyped, parseServerFrameTyped) against the two stages they stand
// for (the envelope, then the payload by name through the table): the same verdict, stage and
// message on every request and server line of the shared corpus, on every payload and event
// line put in a frame, and on mutations of the benchmark frames; the same value when both
// accept. The benchmark frames themselves take the one pass. And parseServerFrame, which tries
// the variant the literal keys pick first, against the union alone.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
    EventTypedSchema,
    RequestTypedSchema,
    ServerFrameSchema,
    isAgentEventType,
    isAgentRequestType,
    parseAgentEventPayload,
    parseAgentRequestPayload,
    parseRequest,
    parseRequestTyped,
    parseServerFrame,
    parseServerFrameTyped,
    noTableEntry,
    type TypedParseResult,
} from '@adecore/agent-contracts';
import { refusalMessage } from '@adecore/agent-contracts/runtime';

/** The workspace root (this file runs from bindings/agent-contracts/dist/test/). */
const ROOT = new URL('../../../../', import.meta.url);


/** The two stages of a request: parseRequest, then the payload by name. */
function requestStages(input: unknown): TypedParseResult<unknown> {
    const frame = parseRequest(input);
    if (!frame.ok) return { ok: false, stage: 'envelope', message: frame.message };
    const name = frame.value.type;
    if (!isAgentRequestType(name)) return { ok: false, stage: 'table', message: noTableEntry(name) };
    const payload = parseAgentRequestPayload(name, frame.value.payload);
    if (!payload.ok) return { ok: false, stage: 'table', message: payload.message };
    return { ok: true, value: { ...frame.value, payload: payload.value } };
}

/** The two stages of a server frame: parseServerFrame, then an event's payload by name. */
function serverStages(input: unknown): TypedParseResult<unknown> {
    const frame = parseServerFrame(input);
    if (!frame.ok) return { ok: false, stage: 'envelope', message: frame.message };
    const v = frame.value;
    if ('ok' in v) return { ok: true, value: v };
    if (!isAgentEventType(v.event)) return { ok: false, stage: 'table', message: noTableEntry(v.event) };
    const payload = parseAgentEventPayload(v.event, v.payload);
    if (!payload.ok) return { ok: false, stage: 'table', message: payload.message };
    return { ok: true, value: { ...v, payload: payload.value } };
}

type Kind = 'request' | 'server';
const typed = (kind: Kind, input: unknown) => (kind === 'request' ? parseRequestTyped(input) : parseServerFrameTyped(input));
const stages = (kind: Kind, input: unknown) => (kind === 'request' ? requestStages(input) : serverStages(input));
/** Whether the one-pass schema alone accepts `input`. */
const onePass = (kind: Kind, input: unknown) => (kind === 'request' ? RequestTypedSchema : EventTypedSchema).safeParse(input).success;

/** What differs between the typed answer and the two stages' on `input`, or null. */
function difference(kind: Kind, input: unknown): string | null {
    const got = typed(kind, input);
    const want = stages(kind, input);
    try {
        assert.deepStrictEqual(got, want);
        return null;
    } catch (e) {
        return e instanceof Error ? e.message : String(e);
    }
}

/** The lines of one corpus file, with their input parsed (lines whose text is not JSON left out). */
function corpus(relative: string) {
    const out: { where: string; as: string; type?: string; input: unknown; ok: boolean; stage?: string }[] = [];
    readFileSync(new URL(`tests/corpus/${relative}`, ROOT), 'utf8')
        .split('\n')
        .forEach((text, i) => {
            if (text.trim() === '') return;
            const l = JSON.parse(text);
            let input: unknown = l.input;
            if (typeof l.raw === 'string') {
                try {
                    input = JSON.parse(l.raw);
                } catch {
                    return;
                }
            }
            out.push({ where: `tests/corpus/${relative}:${i + 1}`, as: l.as, type: l.type, input, ok: l.ok, stage: l.stage });
        });
    return out;
}

/** The frames of one benchmark file, parsed. */
function benchFrames(name: string): unknown[] {
    return readFileSync(new URL(`contracts/benches/data/${name}`, ROOT), 'utf8')
        .split('\n')
        .filter((l) => l.length > 0)
        .map((l) => JSON.parse(l));
}

for (const file of ['agent.jsonl', 'derived/agent.jsonl']) {
    test(`typed frames give the two stages' answer: ${file}`, (t) => {
        const wrong: string[] = [];
        let frames = 0;
        let fast = 0;
        for (const line of corpus(file)) {
            if (line.as !== 'request' && line.as !== 'server') continue;
            const kind = line.as;
            frames++;
            if (onePass(kind, line.input)) fast++;
            const d = difference(kind, line.input);
            if (d !== null) wrong.push(`${line.where}: ${d}`);
            // And the line's own expectation, which the two stages meet (corpus.test.ts).
            const got = typed(kind, line.input);
            if (got.ok !== line.ok || (!got.ok && line.stage !== undefined && got.stage !== line.stage)) {
                wrong.push(`${line.where}: ${JSON.stringify(got)}, expected ok ${line.ok} stage ${line.stage}`);
            }
        }
        t.diagnostic(`${file}: ${frames} request and server lines, ${fast} taken by the one pass, ${wrong.length} differences`);
        assert.ok(frames > 0);
        assert.equal(wrong.length, 0, wrong.join('\n'));
    });

    test(`typed frames give the two stages' answer: ${file}, payloads and events in a frame`, (t) => {
        const wrong: string[] = [];
        let frames = 0;
        for (const line of corpus(file)) {
            let kind: Kind;
            let frame: unknown;
            if (line.as === 'payload') {
                kind = 'request';
                frame = { id: 'r1', type: line.type, payload: line.input };
            } else if (line.as === 'event') {
                kind = 'server';
                frame = { type: 'event', event: line.type, payload: line.input };
            } else {
                continue;
            }
            frames++;
            const d = difference(kind, frame);
            if (d !== null) wrong.push(`${line.where}: ${d}`);
            const got = typed(kind, frame);
            if (got.ok !== line.ok || (!got.ok && got.stage !== 'table')) {
                wrong.push(`${line.where}: ${JSON.stringify(got)}, expected ok ${line.ok} at the table`);
            }
        }
        t.diagnostic(`${file}: ${frames} payload and event lines in frames, ${wrong.length} differences`);
        assert.ok(frames > 0);
        assert.equal(wrong.length, 0, wrong.join('\n'));
    });
}

test('the benchmark frames take the one pass, with the two stages value', () => {
    for (const [kind, file] of [
        ['request', 'requests.jsonl'],
        ['server', 'server.jsonl'],
    ] as const) {
        const frames = benchFrames(file);
        assert.ok(frames.length > 0, file);
        for (const [i, frame] of frames.entries()) {
            assert.ok(onePass(kind, frame), `${file}:${i + 1}: the one-pass schema refuses it`);
            const got = typed(kind, frame);
            assert.ok(got.ok, `${file}:${i + 1}: ${JSON.stringify(got)}`);
            assert.deepStrictEqual(got, stages(kind, frame), `${file}:${i + 1}`);
        }
    }
});

/** Variations of a frame: each key removed, null, of another type; reply keys; odd names. */
function mutations(frame: Record<string, unknown>): unknown[] {
    const out: unknown[] = [];
    for (const k of Object.keys(frame)) {
        const { [k]: _, ...rest } = frame;
        out.push(rest);
        for (const v of [null, 1, '', 'x', {}, [], true]) out.push({ ...frame, [k]: v });
    }
    for (const extra of [{ ok: true }, { ok: false }, { ok: 'yes' }, { ok: undefined }, { ok: true, id: 'r1', result: null }, { ok: false, id: null, error: { code: 'internal', message: 'm' } }, { extra: 1 }, { type: 'event' }, { event: 'chat.status' }]) {
        out.push({ ...frame, ...extra });
    }
    for (const name of ['no.such', '', 'chat.send', 'chat.status', 'constructor', '__proto__', 'toString']) {
        out.push({ ...frame, type: name });
        out.push({ ...frame, event: name });
    }
    out.push([frame], null, undefined, 'frame', 1, Object.create(frame));
    return out;
}

test('typed frames give the two stages answer on mutations of the benchmark frames', (t) => {
    const wrong: string[] = [];
    let n = 0;
    for (const file of ['requests.jsonl', 'server.jsonl']) {
        for (const frame of benchFrames(file)) {
            for (const m of mutations(frame as Record<string, unknown>)) {
                for (const kind of ['request', 'server'] as const) {
                    n++;
                    const d = difference(kind, m);
                    if (d !== null) wrong.push(`${file} ${kind} ${JSON.stringify(m)}: ${d}`);
                }
            }
        }
    }
    t.diagnostic(`${n} mutations, ${wrong.length} differences`);
    assert.equal(wrong.length, 0, wrong.slice(0, 5).join('\n'));
});

test('typed frames: a reply is the reply, an unknown name a table refusal, a hostile input no throw', () => {
    assert.deepStrictEqual(parseServerFrameTyped({ id: '1', ok: true, result: { x: 1 }, type: 'event', event: 'chat.status', payload: {} }), {
        ok: true,
        value: { id: '1', ok: true, result: { x: 1 } },
    });
    assert.deepStrictEqual(parseRequestTyped({ id: '1', type: 'chat.nope', payload: {} }), {
        ok: false,
        stage: 'table',
        message: 'no table entry is called "chat.nope"',
    });
    assert.deepStrictEqual(parseServerFrameTyped({ type: 'event', event: 'chat.nope', payload: {} }), {
        ok: false,
        stage: 'table',
        message: 'no table entry is called "chat.nope"',
    });
    const hostile = new Proxy({}, { get() { throw new Error('boom'); }, has() { throw new Error('boom'); }, ownKeys() { throw new Error('boom'); } });
    assert.deepStrictEqual(parseRequestTyped(hostile), { ok: false, stage: 'envelope', message: 'boom' });
    assert.deepStrictEqual(parseServerFrameTyped(hostile), { ok: false, stage: 'envelope', message: 'boom' });
});

/** The union's own answer: `ServerFrameSchema` alone, as parseServerFrame words it. */
function unionAnswer(input: unknown) {
    try {
        const r = ServerFrameSchema.safeParse(input);
        return r.success ? { ok: true, value: r.data } : { ok: false, message: refusalMessage(r.error) };
    } catch (e) {
        return { ok: false, message: e instanceof Error ? e.message : String(e) };
    }
}

test("parseServerFrame gives the union's answer: the variant its literal keys pick is only tried first", (t) => {
    const inputs: [string, unknown][] = [];
    for (const file of ['agent.jsonl', 'derived/agent.jsonl']) {
        for (const line of corpus(file)) {
            if (line.as === 'server') inputs.push([line.where, line.input]);
            if (line.as === 'event') inputs.push([line.where, { type: 'event', event: line.type, payload: line.input }]);
        }
    }
    for (const frame of benchFrames('server.jsonl')) {
        for (const m of mutations(frame as Record<string, unknown>)) inputs.push(['a mutation', m]);
    }
    // Keys of two variants at once: the first variant that accepts wins, as in the union.
    const reply = { id: '1', ok: true, result: 1 };
    const failure = { id: null, ok: false, error: { code: 'internal', message: 'm' } };
    const event = { type: 'event', event: 'chat.status', payload: {} };
    for (const m of [
        { ...event, ...reply },
        { ...event, ...failure },
        { ...event, ok: true },
        { ...event, ok: false },
        { ...event, ok: false, id: '1' },
        { ...reply, ok: false },
        { ...failure, ok: true },
        { ...reply, type: 'other' },
        { ...event, type: 'other' },
        { ...event, ok: 'true' },
        Object.create(reply),
        Object.create(event),
        [],
        Object.assign([], reply),
        // Accessors that throw: a throw in the pick or the picked variant leaves it to the union.
        { id: 'a', ok: false, get result(): never { throw new Error('R'); }, get error(): never { throw new Error('E'); } },
        { get id(): never { throw new Error('ID'); }, get ok(): never { throw new Error('OK'); }, result: 1 },
    ]) {
        inputs.push(['two variants', m]);
    }
    const wrong: string[] = [];
    for (const [where, input] of inputs) {
        try {
            assert.deepStrictEqual(parseServerFrame(input), unionAnswer(input));
        } catch (e) {
            wrong.push(`${where} ${JSON.stringify(input)}: ${e instanceof Error ? e.message : String(e)}`);
        }
    }
    t.diagnostic(`${inputs.length} inputs, ${wrong.length} differences`);
    assert.equal(wrong.length, 0, wrong.slice(0, 5).join('\n'));
});
