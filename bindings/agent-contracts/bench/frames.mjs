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
// - generated-schemas: the generated schemas and tables, run by the hand-written path's own
//   code, so that only the schemas differ from `handwritten`: what the generated Zod costs
//   itself, without the spec's parse functions around it.
// - handwritten: Zod schemas of the same shapes written by hand below (the baseline; checked
//   to have the generated schemas' keys, variants, checks and values before anything runs), the
//   same two stages, looked up in copies of the package's tables (see handwrittenPaths).
// - handwritten-again: the hand-written path once more: the A/A control. What it measures
//   against `handwritten` is the noise of the measurement itself, so a ratio between two Zod
//   paths means something only beyond it.
// - handwritten-alone: the hand-written schemas in tables of their own that hold only the
//   mix's entries, in a process that does not load the package. It shows what the size of the
//   protocol costs (the package loaded, the lookup in a 41-entry table): `handwritten` runs
//   the same schemas in the package's tables, as a hand-written package would have them.
// - json-parse: JSON.parse alone, no schema: the floor under every Zod path (V8's own
//   parser, in C++), so the ratio of the Rust path to it bounds what any Zod path can reach.
//
// Each path runs in a node process of its own, as an app runs one set of schemas: in one
// process, the paths measured later run on inline caches the earlier ones shaped (Zod's parse
// code is shared by every schema), which moved two copies of the same hand-written schemas 7
// to 10% apart. Rounds start a process per path, in alternating order; each process warms
// up, then measures its path --tries times; a line is the median over the rounds of each
// process's median.
//
// Hand-written, not generated. Build the package first (npm run build), then:
//   node bench/frames.mjs [--json] [--rounds N] [--tries N] [--ms MS]
// or one path in this process: node bench/frames.mjs --only requests/generated

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const args = process.argv.slice(2);
const option = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
};
const flag = (name, dflt) => Number(option(name) ?? dflt);
const JSON_OUT = args.includes('--json');
const ONLY = option('--only');
const ROUNDS = flag('--rounds', 6);
const TRIES = flag('--tries', 5);
const MS = flag('--ms', 300);

const dataDir = fileURLToPath(new URL('../../../contracts/benches/data/', import.meta.url));
const lines = (name) =>
    readFileSync(dataDir + name, 'utf8')
        .split('\n')
        .filter((l) => l.length > 0);
const frames = { requests: lines('requests.jsonl'), server: lines('server.jsonl') };

/** The package, imported only by the processes that run it. */
const pkg = () => import('../dist/src/index.js');

// ---- the generated paths ----

/** The spec's two stages: the frame, then its payload by name. */
async function generated() {
    const { AGENT_EVENT_SCHEMAS, AGENT_REQUEST_SCHEMAS, parseRequest, parseServerFrame } = await pkg();
    const request = (text) => {
        const frame = parseRequest(JSON.parse(text));
        if (!frame.ok) throw new Error(frame.message);
        const entry = AGENT_REQUEST_SCHEMAS[frame.value.type];
        if (!entry) throw new Error(`unknown request ${frame.value.type}`);
        const payload = entry.payload.safeParse(frame.value.payload);
        if (!payload.success) throw new Error(z.prettifyError(payload.error));
        return payload.data;
    };
    const event = (text) => {
        const frame = parseServerFrame(JSON.parse(text));
        if (!frame.ok) throw new Error(frame.message);
        if (!('event' in frame.value)) throw new Error('the mix holds events only');
        const schema = AGENT_EVENT_SCHEMAS[frame.value.event];
        if (!schema) throw new Error(`unknown event ${frame.value.event}`);
        const payload = schema.safeParse(frame.value.payload);
        if (!payload.success) throw new Error(z.prettifyError(payload.error));
        return payload.data;
    };
    return { requests: request, server: event };
}

/** The one pass: the frame and its payload in one safeParse. */
async function generatedTyped() {
    const { parseRequestTyped, parseServerFrameTyped } = await pkg();
    const request = (text) => {
        const frame = parseRequestTyped(JSON.parse(text));
        if (!frame.ok) throw new Error(frame.message);
        return frame.value.payload;
    };
    const event = (text) => {
        const frame = parseServerFrameTyped(JSON.parse(text));
        if (!frame.ok) throw new Error(frame.message);
        if (!('event' in frame.value)) throw new Error('the mix holds events only');
        return frame.value.payload;
    };
    return { requests: request, server: event };
}

/**
 * The generated schemas, run by the hand-written path's own code (handRequest, handEvent): the
 * same calls in the same order, so only the schemas differ. The server frame is the union
 * itself, without the pick parseServerFrame runs first.
 */
async function generatedSchemas() {
    const { AGENT_EVENT_SCHEMAS, AGENT_REQUEST_SCHEMAS, RequestSchema, ServerFrameSchema } = await pkg();
    const T = { request: RequestSchema, serverFrame: ServerFrameSchema, payloads: AGENT_REQUEST_SCHEMAS, events: AGENT_EVENT_SCHEMAS };
    return { requests: (text) => handRequest(T, text), server: (text) => handEvent(T, text) };
}

// ---- the hand-written baseline: the same shapes, written directly ----

/** The hand-written schemas. */
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
        z.object({
            kind: z.literal('approval'),
            id,
            historyIndex: ts.optional(),
            toolUseId: id,
            tool: z.string(),
            summary: z.string(),
            input: z.unknown(),
            state: z.enum(['pending', 'allowed', 'denied', 'dismissed']),
        }),
        z.object({
            kind: z.literal('question'),
            id,
            historyIndex: ts.optional(),
            question: z.string(),
            options: z.array(z.string()),
            answer: z.string().optional(),
            state: z.enum(['pending', 'answered', 'dismissed']),
        }),
        z.object({
            kind: z.literal('subagent'),
            id,
            historyIndex: ts.optional(),
            toolUseId: id,
            description: z.string(),
            origin: z.enum(['chat', 'host-task']),
            status,
            taskId: z.string().min(1).optional(),
        }),
        z.object({ kind: z.literal('notice'), id, historyIndex: ts.optional(), level: z.enum(['info', 'warning', 'error']), text: z.string() }),
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
    const chatEvent = z.discriminatedUnion('type', [
        z.object({ type: z.literal('item'), item }),
        z.object({ type: z.literal('delta'), itemId: id, text: z.string() }),
        z.object({ type: z.literal('info'), info }),
        z.object({ type: z.literal('reset'), info, items: z.array(item) }),
    ]);
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

/**
 * The hand-written schemas in the spec's tables, the same two stages. The process loads the
 * package, as the generated paths' do, and looks a payload up in a table of the protocol's
 * size: the package's tables, copied, with the entries the mix uses swapped for hand-written
 * ones. So the two paths differ only in the schemas they run, which is what the comparison is
 * about: a hand-written package of the whole protocol would have tables of the same size.
 */
async function handwrittenPaths() {
    const { AGENT_EVENT_SCHEMAS, AGENT_REQUEST_SCHEMAS } = await pkg();
    const H = handwritten();
    const payloads = { ...AGENT_REQUEST_SCHEMAS };
    for (const [name, payload] of Object.entries(H.payloads)) {
        if (!payloads[name]) throw new Error(`${name} is not in the request table`);
        payloads[name] = { payload, result: payloads[name].result };
    }
    const events = { ...AGENT_EVENT_SCHEMAS };
    for (const [name, payload] of Object.entries(H.events)) {
        if (!events[name]) throw new Error(`${name} is not in the event table`);
        events[name] = payload;
    }
    const T = { ...H, payloads, events };
    return { requests: (text) => handRequest(T, text), server: (text) => handEvent(T, text) };
}

/** The hand-written schemas alone: their own small tables, in a process without the package. */
async function handwrittenAlone() {
    const H = handwritten();
    const payloads = Object.fromEntries(Object.entries(H.payloads).map(([name, payload]) => [name, { payload }]));
    const T = { ...H, payloads };
    return { requests: (text) => handRequest(T, text), server: (text) => handEvent(T, text) };
}

function handRequest(H, text) {
    const frame = H.request.safeParse(JSON.parse(text));
    if (!frame.success) throw new Error(z.prettifyError(frame.error));
    const entry = H.payloads[frame.data.type];
    if (!entry) throw new Error(`unknown request ${frame.data.type}`);
    const payload = entry.payload.safeParse(frame.data.payload);
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

const PATHS = {
    generated,
    'generated-typed': generatedTyped,
    'generated-schemas': generatedSchemas,
    handwritten: handwrittenPaths,
    'handwritten-again': handwrittenPaths,
    'handwritten-alone': handwrittenAlone,
    'json-parse': async () => ({ requests: JSON.parse, server: JSON.parse }),
};
const KEYS = Object.keys(PATHS).flatMap((p) => ['requests', 'server'].map((g) => `${g}/${p}`));

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

/** One path in this process: every frame accepted, a warm-up, then the median of the tries. */
async function runOne(key) {
    const [group, path] = key.split('/');
    if (!PATHS[path] || !frames[group]) throw new Error(`no path ${key}; one of ${KEYS.join(', ')}`);
    const parse = (await PATHS[path]())[group];
    for (const f of frames[group]) parse(f);
    measure(parse, frames[group], MS);
    const rates = [];
    for (let i = 0; i < TRIES; i++) rates.push(measure(parse, frames[group], MS));
    return median(rates);
}

if (ONLY) {
    console.log(JSON.stringify({ key: ONLY, framesPerSecond: await runOne(ONLY) }));
    if (sink < 0) console.log(sink);
    process.exit(0);
}

// The one pass gives the two stages' payload on every frame.
{
    const [two, one] = [await generated(), await generatedTyped()];
    for (const g of ['requests', 'server']) {
        for (const f of frames[g]) {
            const [a, b] = [JSON.stringify(one[g](f)), JSON.stringify(two[g](f))];
            if (a !== b) throw new Error(`the one pass differs: ${a}`);
        }
    }
}

// The hand-written schemas have the generated ones' shapes: the same keys (in any order), the
// same variants, checks, literals and enum values, so neither side does less work.
{
    /** What a schema checks at its own level, as text. */
    const own = (s) => {
        const d = s._zod.def;
        const checks = (d.checks ?? []).map((c) => {
            const { check, minimum, maximum, value, format } = c._zod.def;
            return `${check}:${minimum ?? maximum ?? value ?? format ?? ''}`;
        });
        return JSON.stringify([d.type, checks, d.values ?? null, d.entries ? Object.keys(d.entries) : null]);
    };
    const tagOf = (o, key) => o._zod.def.shape[key]._zod.def.values[0];
    const same = (g, h, path) => {
        if (own(g) !== own(h)) throw new Error(`${path}: generated ${own(g)}, hand-written ${own(h)}`);
        const [d, e] = [g._zod.def, h._zod.def];
        if (d.type === 'object') {
            const [kd, ke] = [Object.keys(d.shape).sort(), Object.keys(e.shape).sort()];
            if (kd.join() !== ke.join()) throw new Error(`${path}: keys ${kd} generated, ${ke} hand-written`);
            for (const k of kd) same(d.shape[k], e.shape[k], `${path}.${k}`);
        } else if (d.type === 'union') {
            if (d.options.length !== e.options.length || d.discriminator !== e.discriminator) {
                throw new Error(`${path}: ${d.options.length} variants generated, ${e.options.length} hand-written`);
            }
            d.options.forEach((o, i) => {
                const tag = d.discriminator && tagOf(o, d.discriminator);
                const other = tag ? e.options.find((x) => tagOf(x, d.discriminator) === tag) : e.options[i];
                if (!other) throw new Error(`${path}: no hand-written variant ${tag}`);
                same(o, other, `${path}|${tag ?? i}`);
            });
        } else if (['optional', 'nullable', 'default'].includes(d.type)) same(d.innerType, e.innerType, `${path}?`);
        else if (d.type === 'array') same(d.element, e.element, `${path}[]`);
    };
    const [P, H] = [await pkg(), handwritten()];
    same(P.RequestSchema, H.request, 'Request');
    same(P.ServerFrameSchema, H.serverFrame, 'ServerFrame');
    for (const [name, schema] of Object.entries(H.payloads)) same(P.AGENT_REQUEST_SCHEMAS[name].payload, schema, name);
    for (const [name, schema] of Object.entries(H.events)) same(P.AGENT_EVENT_SCHEMAS[name], schema, name);
}

const self = fileURLToPath(import.meta.url);
const rates = new Map(KEYS.map((k) => [k, []]));
for (let r = 0; r < ROUNDS; r++) {
    // Alternate the order so no path always runs first.
    const order = r % 2 ? [...KEYS].reverse() : KEYS;
    for (const key of order) {
        const child = spawnSync(process.execPath, [self, '--only', key, '--tries', String(TRIES), '--ms', String(MS)], {
            encoding: 'utf8',
        });
        if (child.status !== 0) throw new Error(`${key}: ${child.stderr}`);
        rates.get(key).push(JSON.parse(child.stdout).framesPerSecond);
    }
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
            generatedSchemasOverHandwritten: { requests: ratio('requests', 'generated-schemas'), server: ratio('server', 'generated-schemas') },
            againOverHandwritten: { requests: ratio('requests', 'handwritten-again'), server: ratio('server', 'handwritten-again') },
            aloneOverHandwritten: { requests: ratio('requests', 'handwritten-alone'), server: ratio('server', 'handwritten-alone') },
        }),
    );
} else {
    for (const [key, v] of Object.entries(result)) console.log(`${key.padEnd(26)} ${Math.round(v).toLocaleString('en').padStart(12)} frames/s`);
    console.log(`generated / handwritten: requests ${ratio('requests').toFixed(2)}x, server ${ratio('server').toFixed(2)}x`);
    console.log(
        `generated-typed / handwritten: requests ${ratio('requests', 'generated-typed').toFixed(2)}x, server ${ratio('server', 'generated-typed').toFixed(2)}x`,
    );
    console.log(
        `generated-schemas / handwritten: requests ${ratio('requests', 'generated-schemas').toFixed(2)}x, server ${ratio('server', 'generated-schemas').toFixed(2)}x`,
    );
    console.log(
        `handwritten-again / handwritten (A/A control): requests ${ratio('requests', 'handwritten-again').toFixed(2)}x, server ${ratio('server', 'handwritten-again').toFixed(2)}x`,
    );
    console.log(
        `handwritten-alone / handwritten: requests ${ratio('requests', 'handwritten-alone').toFixed(2)}x, server ${ratio('server', 'handwritten-alone').toFixed(2)}x`,
    );
}
