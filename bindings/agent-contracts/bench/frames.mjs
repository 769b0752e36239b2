// Parse plus payload validation of the frame mix (contracts/benches/data/*.jsonl, the same
// bytes the Rust benchmark reads), side by side in one run:
//
// - generated: this package, both stages: JSON.parse, parseRequest, then
//   AGENT_REQUEST_SCHEMAS[type].payload.safeParse; parseServerFrame, then
//   AGENT_EVENT_SCHEMAS[event].safeParse.
// - generated-typed: this package, one pass: JSON.parse, then parseRequestTyped or
//   parseServerFrameTyped (RequestTypedSchema / EventTypedSchema, the payload read by its name
//   in the frame's own safeParse; the two stages only when that refuses, which no frame of the
//   mix does).
// - handwritten: Zod schemas of the same shapes written by hand below (the baseline), the
//   same two stages.
// - handwritten-again: a second copy of the same hand-written schemas, built right after the
//   first and run the same way: the A/A control. What it measures against `handwritten` is
//   the noise of V8 itself (inline caches, object layouts), not a difference of shapes, so a
//   ratio between two Zod paths is only meaningful beyond it.
// - json-parse: JSON.parse alone, no schema: the floor under every Zod path (V8's own
//   parser, in C++), so the ratio of the Rust path to it bounds what any Zod path can reach.
//
// Hand-written, not generated. Build the package first (npm run build), then:
//   node bench/frames.mjs [--json] [--rounds N] [--ms MS]
// Rounds alternate the order of the paths; each line is the median over the rounds.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import {
    AGENT_EVENT_SCHEMAS,
    AGENT_REQUEST_SCHEMAS,
    parseRequest,
    parseRequestTyped,
    parseServerFrame,
    parseServerFrameTyped,
} from '../dist/src/index.js';

const args = process.argv.slice(2);
const flag = (name, dflt) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : dflt;
};
const JSON_OUT = args.includes('--json');
const ROUNDS = flag('--rounds', 10);
const MS = flag('--ms', 500);

const dataDir = fileURLToPath(new URL('../../../contracts/benches/data/', import.meta.url));
const lines = (name) =>
    readFileSync(dataDir + name, 'utf8')
        .split('\n')
        .filter((l) => l.length > 0);
const requests = lines('requests.jsonl');
const server = lines('server.jsonl');

// ---- the generated path ----

function generatedRequest(text) {
    const frame = parseRequest(JSON.parse(text));
    if (!frame.ok) throw new Error(frame.message);
    const entry = AGENT_REQUEST_SCHEMAS[frame.value.type];
    if (!entry) throw new Error(`unknown request ${frame.value.type}`);
    const payload = entry.payload.safeParse(frame.value.payload);
    if (!payload.success) throw new Error(z.prettifyError(payload.error));
    return payload.data;
}

function generatedEvent(text) {
    const frame = parseServerFrame(JSON.parse(text));
    if (!frame.ok) throw new Error(frame.message);
    if (!('event' in frame.value)) throw new Error('the mix holds events only');
    const schema = AGENT_EVENT_SCHEMAS[frame.value.event];
    if (!schema) throw new Error(`unknown event ${frame.value.event}`);
    const payload = schema.safeParse(frame.value.payload);
    if (!payload.success) throw new Error(z.prettifyError(payload.error));
    return payload.data;
}

// ---- the generated one-pass path ----

function typedRequest(text) {
    const frame = parseRequestTyped(JSON.parse(text));
    if (!frame.ok) throw new Error(frame.message);
    return frame.value.payload;
}

function typedEvent(text) {
    const frame = parseServerFrameTyped(JSON.parse(text));
    if (!frame.ok) throw new Error(frame.message);
    if (!('event' in frame.value)) throw new Error('the mix holds events only');
    return frame.value.payload;
}

// ---- the hand-written baseline: the same shapes, written directly ----

/** The hand-written schemas; called twice (the baseline and the A/A control). */
const handwritten = () => {
    const id = z.string().min(1);
    const ts = z.int().min(0);
    const attachment = z.object({ name: z.string().min(1), mediaType: z.string().min(1), uri: z.string().min(1) });
    const payloads = {
        'chat.attach': z.object({ chatId: id, historyLimit: z.int().min(1).max(100).optional(), since: ts.optional() }),
        'chat.history': z.object({ chatId: id, cursor: z.string().min(1).max(128), limit: z.int().min(1).max(100).optional() }),
        'chat.send': z.object({ chatId: id, text: z.string().min(1), attachments: z.array(attachment).optional() }),
        'chat.approve': z.object({
            chatId: id,
            itemId: id,
            decision: z.enum(['allow', 'allow-always', 'deny']),
            note: z.string().optional(),
        }),
        'usage.summary': z.object({ from: ts, to: ts }),
        'chat.list': z.object({}),
        'chat.cancel': z.object({ chatId: id }),
    };
    const status = z.enum(['running', 'done', 'failed', 'cancelled']);
    const item = z.discriminatedUnion('kind', [
        z.object({
            kind: z.literal('user'),
            id,
            historyIndex: ts.optional(),
            text: z.string(),
            attachments: z.array(attachment).optional(),
            createdAt: ts,
        }),
        z.object({
            kind: z.literal('reply'),
            id,
            historyIndex: ts.optional(),
            text: z.string(),
            model: z.string().optional(),
            streaming: z.boolean().optional(),
            createdAt: ts,
        }),
        z.object({ kind: z.literal('thought'), id, historyIndex: ts.optional(), text: z.string(), streaming: z.boolean().optional() }),
        z.object({
            kind: z.literal('tool'),
            id,
            historyIndex: ts.optional(),
            toolUseId: id,
            name: z.string(),
            input: z.unknown(),
            output: z.string().optional(),
            status,
        }),
    ]);
    const chatEvent = z.discriminatedUnion('type', [
        z.object({ type: z.literal('item'), item }),
        z.object({ type: z.literal('delta'), itemId: id, text: z.string() }),
    ]);
    const card = z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('approval'), itemId: id, toolUseId: id, tool: z.string(), summary: z.string() }),
        z.object({ kind: z.literal('question'), itemId: id, question: z.string() }),
    ]);
    const info = z.object({
        chatId: id,
        title: z.string(),
        state: z.enum(['idle', 'running', 'waiting', 'failed']),
        provider: id,
        model: z.string().optional(),
        cwd: z.string().optional(),
        createdAt: ts,
        updatedAt: ts,
        queued: z.array(z.object({ queuedId: id, text: z.string(), queuedAt: ts })),
        requests: z.array(card),
        forkedFrom: z.object({ chatId: id, itemId: id }).optional(),
        preferences: z
            .object({ autoApprove: z.boolean().optional(), effort: z.enum(['low', 'medium', 'high']).optional(), showThoughts: z.boolean().optional() })
            .optional(),
        usage: z.object({ inputTokens: ts, outputTokens: ts, costUsd: z.number().min(0).optional() }).optional(),
    });
    const events = {
        'chat.event': z.object({ chatId: id, event: chatEvent, seq: ts.optional() }),
        'chat.status': z.object({ chatId: id, info }),
    };
    const request = z.object({ id, type: id, payload: z.unknown() });
    const serverFrame = z.union([
        z.object({ id, ok: z.literal(true), result: z.unknown() }),
        z.object({ id: id.nullable(), ok: z.literal(false), error: z.object({ code: z.string(), message: z.string() }) }),
        z.object({ type: z.literal('event'), event: id, payload: z.unknown() }),
    ]);
    return { payloads, events, request, serverFrame };
};
const H = handwritten();
const AGAIN = handwritten();

const handwrittenRequest = (text) => handRequest(H, text);
const handwrittenEvent = (text) => handEvent(H, text);
const againRequest = (text) => handRequest(AGAIN, text);
const againEvent = (text) => handEvent(AGAIN, text);

function handRequest(H, text) {
    const frame = H.request.safeParse(JSON.parse(text));
    if (!frame.success) throw new Error(z.prettifyError(frame.error));
    const schema = H.payloads[frame.data.type];
    if (!schema) throw new Error(`unknown request ${frame.data.type}`);
    const payload = schema.safeParse(frame.data.payload);
    if (!payload.success) throw new Error(z.prettifyError(payload.error));
    return payload.data;
}

function handEvent(H, text) {
    const frame = H.serverFrame.safeParse(JSON.parse(text));
    if (!frame.success) throw new Error(z.prettifyError(frame.error));
    if (!('event' in frame.data)) throw new Error('the mix holds events only');
    const schema = H.events[frame.data.event];
    if (!schema) throw new Error(`unknown event ${frame.data.event}`);
    const payload = schema.safeParse(frame.data.payload);
    if (!payload.success) throw new Error(z.prettifyError(payload.error));
    return payload.data;
}

// ---- measuring ----

let sink = 0;

/** Frames per second of `parse` over `frames`, for about `ms` milliseconds. */
function measure(parse, frames, ms) {
    const end = process.hrtime.bigint() + BigInt(ms) * 1_000_000n;
    let n = 0;
    let start = process.hrtime.bigint();
    let now = start;
    do {
        for (const f of frames) {
            if (parse(f) !== undefined) sink++;
        }
        n += frames.length;
        now = process.hrtime.bigint();
    } while (now < end);
    return (n * 1e9) / Number(now - start);
}

const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const cases = [
    ['requests', 'generated', generatedRequest, requests],
    ['requests', 'handwritten', handwrittenRequest, requests],
    ['server', 'generated', generatedEvent, server],
    ['server', 'handwritten', handwrittenEvent, server],
    ['requests', 'generated-typed', typedRequest, requests],
    ['server', 'generated-typed', typedEvent, server],
    ['requests', 'handwritten-again', againRequest, requests],
    ['server', 'handwritten-again', againEvent, server],
    ['requests', 'json-parse', JSON.parse, requests],
    ['server', 'json-parse', JSON.parse, server],
];

// Every path accepts every frame (the one pass gives the two stages' payload), then a warm-up.
for (const [, , parse, frames] of cases) {
    for (const f of frames) parse(f);
    measure(parse, frames, 300);
}
for (const f of requests) assertSame(typedRequest(f), generatedRequest(f));
for (const f of server) assertSame(typedEvent(f), generatedEvent(f));

function assertSame(a, b) {
    if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`the one pass differs: ${JSON.stringify(a)}`);
}

const rates = new Map(cases.map(([g, p]) => [`${g}/${p}`, []]));
for (let r = 0; r < ROUNDS; r++) {
    // Alternate the order so neither path always runs first.
    const order = r % 2 ? [...cases].reverse() : cases;
    for (const [g, p, parse, frames] of order) rates.get(`${g}/${p}`).push(measure(parse, frames, MS));
}

const result = {};
for (const [key, xs] of rates) result[key] = median(xs);
const ratio = (g, p = 'generated') => result[`${g}/${p}`] / result[`${g}/handwritten`];

if (JSON_OUT) {
    console.log(
        JSON.stringify({
            framesPerSecond: result,
            generatedOverHandwritten: { requests: ratio('requests'), server: ratio('server') },
            generatedTypedOverHandwritten: { requests: ratio('requests', 'generated-typed'), server: ratio('server', 'generated-typed') },
            againOverHandwritten: { requests: ratio('requests', 'handwritten-again'), server: ratio('server', 'handwritten-again') },
        }),
    );
} else {
    for (const [key, v] of Object.entries(result)) console.log(`${key.padEnd(26)} ${Math.round(v).toLocaleString('en').padStart(12)} frames/s`);
    console.log(`generated / handwritten: requests ${ratio('requests').toFixed(2)}x, server ${ratio('server').toFixed(2)}x`);
    console.log(
        `generated-typed / handwritten: requests ${ratio('requests', 'generated-typed').toFixed(2)}x, server ${ratio('server', 'generated-typed').toFixed(2)}x`,
    );
    console.log(
        `handwritten-again / handwritten (A/A control): requests ${ratio('requests', 'handwritten-again').toFixed(2)}x, server ${ratio('server', 'handwritten-again').toFixed(2)}x`,
    );
}
if (sink < 0) console.log(sink);
