// The generated corpus of the differential test (tests/official/README.md): valid messages
// made from a protocol's official JSON Schema, then boundary mutations of each. Seeded and
// deterministic: the same schema and seed, the same lines, in the same order.
//
//   node tests/official/generate.mjs mcp|acp [--seed N]    the lines, one JSON object each
//
// For each method of the official schema (each request and notification of both sides, and
// the result of each request, by the result defs of the method it answers; and error
// responses), three valid messages: `min` (required keys only), `full` (every optional key)
// and `mixed` (each optional key by chance, each union's member by chance), each accepted by
// the official schema (a candidate it refuses is made again, up to a bound). Then, at sites
// drawn from each valid message's tree, the mutations below; the official verdict on each is
// whatever ajv says (a mutation need not make the message invalid: an extra key on an open
// object is still valid).
//
// Mutations: a required key removed; a value of another JSON type; an enum or const value
// changed; a number at and beyond its minimum or maximum; a string format broken; a string
// below its minimum length; an extra key; null where the value is not null; an integer made
// fractional and made larger than 2^53; the envelope's `jsonrpc`, `id` and `params` changed,
// removed or (a notification's `id`) added, and an extra key beside them.

import { random, kindOf } from './lib.mjs';

/** The seed `cargo xtask test` uses. */
export const SEED = 37;

/** Mutations kept per valid message at most (after the ones of every kind are taken first). */
const MUTATIONS_PER_MESSAGE = 16;

/** A valid message is made again at most this many times before it is given up. */
const TRIES = 40;

/** How deep a made value may nest before optional keys and arrays are left empty. */
const DEEP = 7;

const clone = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

/** The subschema a `$ref` names. */
function deref(root, ref) {
    const name = decodeURIComponent(ref.replace('#/$defs/', ''));
    const s = root.$defs[name];
    if (s === undefined) throw new Error(`no $defs entry ${name}`);
    return s;
}

/** A schema node with its `$ref`s and single-member `allOf`s followed, its siblings kept;
 * an `allOf` of several members merged (properties and required). */
function resolve(root, s) {
    let node = s;
    for (let guard = 0; guard < 32; guard++) {
        if (node === true || node === undefined) return {};
        if (typeof node.$ref === 'string') {
            const { $ref, ...rest } = node;
            node = mergeNodes(deref(root, $ref), stripDocs(rest));
            continue;
        }
        if (Array.isArray(node.allOf)) {
            const { allOf, ...rest } = node;
            if (allOf.length === 1) {
                node = mergeNodes(resolve(root, allOf[0]), stripDocs(rest));
                continue;
            }
            node = allOf.reduce((merged, part) => mergeNodes(merged, resolve(root, part)), stripDocs(rest));
            continue;
        }
        return node;
    }
    throw new Error('a $ref chain too long');
}

function stripDocs(s) {
    const { description, title, default: _d, examples, ...rest } = s;
    return rest;
}

/** The JSON types a resolved node allows, or null when it says none. */
function typesOf(node) {
    if (node.type === undefined) return null;
    return Array.isArray(node.type) ? node.type : [node.type];
}

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'file.txt', 'hello world', 'é😀', 'sess_1'];

/**
 * A value of `schema`, recording each node made as a site `{ path, node }`.
 * `mode`: `min`, `full` or `mixed`.
 */
function make(root, schema, path, ctx, depth) {
    const made = makeNode(root, resolve(root, schema), path, ctx, depth);
    ctx.sites.push({ path, node: made.node, value: made.value });
    return made.value;
}

/** A value of a resolved node, and the node that made it (a union's member). */
function makeNode(root, node, path, ctx, depth) {
    if (Array.isArray(node.anyOf ?? node.oneOf)) return makeUnion(root, node, path, ctx, depth);
    return { value: makeValue(root, node, path, ctx, depth), node };
}

function makeUnion(root, node, path, ctx, depth) {
    const { rng, mode } = ctx;
    const union = node.anyOf ?? node.oneOf;
    // `min` deep down takes the first member, others one by chance; null only when no other.
    const members = union.filter((m) => resolve(root, m).type !== 'null');
    const choices = members.length > 0 ? members : union;
    const pick = mode === 'min' && depth > DEEP ? choices[0] : rng.pick(choices);
    const { anyOf, oneOf, ...rest } = node;
    // Siblings of the union (an object's `type`, `properties`) apply as well.
    return makeNode(root, mergeNodes(rest, resolve(root, pick)), path, ctx, depth + 1);
}

function makeValue(root, node, path, ctx, depth) {
    const { rng, mode } = ctx;
    if (depth > 24) throw new Error('too deep');
    if ('const' in node) return clone(node.const);
    if (Array.isArray(node.enum)) return clone(mode === 'min' ? node.enum[0] : rng.pick(node.enum));
    let types = typesOf(node);
    if (types === null) {
        if (node.properties !== undefined || node.required !== undefined) types = ['object'];
        else return mode === 'min' ? {} : { any: [1, 'two'] };
    }
    const nonNull = types.filter((t) => t !== 'null');
    const type = nonNull.length === 0 ? 'null' : mode === 'mixed' && types.includes('null') && rng.chance(0.1) ? 'null' : rng.pick(nonNull);
    switch (type) {
        case 'null':
            return null;
        case 'boolean':
            return rng.chance(0.5);
        case 'integer': {
            const lo = node.minimum ?? (node.exclusiveMinimum !== undefined ? node.exclusiveMinimum + 1 : 0);
            const hi = node.maximum ?? (node.exclusiveMaximum !== undefined ? node.exclusiveMaximum - 1 : lo + 1000);
            return lo + rng.int(Math.max(1, Math.min(hi - lo + 1, 1000)));
        }
        case 'number': {
            const lo = node.minimum ?? 0;
            const hi = node.maximum ?? lo + 100;
            return Math.round((lo + rng.next() * (hi - lo)) * 100) / 100;
        }
        case 'string':
            return makeString(node, rng);
        case 'array': {
            const min = node.minItems ?? 0;
            const n = depth > DEEP ? min : mode === 'min' ? min : mode === 'full' ? Math.max(min, 2) : min + rng.int(3);
            const out = [];
            for (let i = 0; i < n; i++) out.push(make(root, node.items ?? {}, [...path, i], ctx, depth + 1));
            return out;
        }
        case 'object': {
            const out = {};
            const required = new Set(node.required ?? []);
            for (const [key, prop] of Object.entries(node.properties ?? {})) {
                const take = required.has(key) || (depth <= DEEP && (mode === 'full' || (mode === 'mixed' && rng.chance(0.5))));
                if (take) out[key] = make(root, prop, [...path, key], ctx, depth + 1);
            }
            const extra = node.additionalProperties;
            if (extra !== undefined && extra !== false && mode !== 'min' && depth <= DEEP && Object.keys(node.properties ?? {}).length === 0) {
                const key = `key${rng.int(100)}`;
                out[key] = make(root, extra === true ? {} : extra, [...path, key], ctx, depth + 1);
            }
            return out;
        }
        default:
            throw new Error(`unknown type ${type}`);
    }
}

function mergeNodes(a, b) {
    const out = { ...a };
    for (const [k, v] of Object.entries(b)) {
        if (k === 'properties') out.properties = { ...out.properties, ...v };
        else if (k === 'required') out.required = [...new Set([...(out.required ?? []), ...v])];
        else out[k] = v;
    }
    return out;
}

function makeString(node, rng) {
    let s;
    switch (node.format) {
        case 'uri':
            s = rng.pick(['https://example.com/a', 'file:///home/user/project/main.rs', 'urn:example:1']);
            break;
        case 'byte':
            s = rng.pick(['aGVsbG8=', 'AAEC', '']);
            break;
        case 'uri-template':
            s = 'file:///{path}';
            break;
        default:
            s = rng.pick(WORDS);
    }
    while (node.minLength !== undefined && [...s].length < node.minLength) s += 'x';
    return s;
}

/** Sets the value at `path` (null `value` included); `undefined` removes the key. */
function setAt(message, path, value) {
    const out = clone(message);
    if (path.length === 0) return value;
    let at = out;
    for (const k of path.slice(0, -1)) at = at[k];
    const last = path.at(-1);
    if (value === undefined) {
        if (Array.isArray(at)) at.splice(last, 1);
        else delete at[last];
    } else at[last] = value;
    return out;
}

const show = (path) => (path.length === 0 ? '(root)' : path.join('.'));

/** Another JSON type's value than `v`'s. */
function otherType(v) {
    if (typeof v === 'string') return 42;
    if (typeof v === 'number') return String(v);
    if (typeof v === 'boolean') return 'true';
    if (Array.isArray(v)) return {};
    if (v === null) return 'null';
    return [];
}

/** Every mutation at one site: `{ kind, note, message }`. */
function mutationsAt(message, site) {
    const { path, node, value } = site;
    const out = [];
    const add = (kind, what, v) => out.push({ kind, note: `${what} at ${show(path)}`, message: setAt(message, path, v) });
    if (path.length > 0) add('wrong-type', `${JSON.stringify(otherType(value))} for ${JSON.stringify(value)}`, otherType(value));
    if (value !== null && path.length > 0) add('null', 'null', null);
    if ('const' in node && typeof node.const === 'string') add('const', `const ${JSON.stringify(node.const)} changed`, `${node.const}-x`);
    if ('const' in node && typeof node.const === 'number') add('const', `const ${node.const} changed`, node.const + 1);
    if (Array.isArray(node.enum)) add('enum', 'a value outside the enum', 'not-in-enum');
    if (typeof value === 'number') {
        if (node.minimum !== undefined) {
            add('minimum', `the minimum ${node.minimum}`, node.minimum);
            add('below-minimum', `below the minimum ${node.minimum}`, Number.isInteger(node.minimum) && typesOf(node)?.includes('integer') ? node.minimum - 1 : node.minimum - 0.5);
        }
        if (node.maximum !== undefined) {
            add('maximum', `the maximum ${node.maximum}`, node.maximum);
            add('above-maximum', `above the maximum ${node.maximum}`, typesOf(node)?.includes('integer') ? node.maximum + 1 : node.maximum + 0.5);
        }
        if (typesOf(node)?.includes('integer')) {
            add('fractional', 'an integer made fractional', value + 0.5);
            if (node.maximum === undefined) add('beyond-2^53', 'an integer beyond 2^53', 9007199254740993);
        }
    }
    if (typeof value === 'string') {
        if (node.format !== undefined) add('format', `format ${node.format} broken`, node.format === 'byte' ? '***not base64***' : 'not a uri: no scheme');
        if (node.minLength !== undefined) add('min-length', `shorter than ${node.minLength}`, [...value].slice(0, node.minLength - 1).join(''));
    }
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        for (const key of node.required ?? []) if (key in value) add('required', `required key ${JSON.stringify(key)} removed`, withoutKey(value, key));
        add('extra-key', 'an extra key', { ...value, extraKey: 'extra' });
    }
    return out;
}

function withoutKey(obj, key) {
    const { [key]: _, ...rest } = obj;
    return rest;
}

/** The envelope's own mutations: `jsonrpc`, `id`, `params`. */
function envelopeMutations(message) {
    const out = [];
    const add = (kind, note, m) => out.push({ kind, note, message: m });
    add('jsonrpc', 'jsonrpc "1.0"', { ...message, jsonrpc: '1.0' });
    add('jsonrpc', 'jsonrpc removed', withoutKey(message, 'jsonrpc'));
    // Every kind of message, results and errors too (the sites below reach the root of an MCP
    // request or notification only).
    add('envelope-extra-key', 'an extra key at (root)', { ...message, extraKey: 'extra' });
    const kind = kindOf(message);
    if ('id' in message) {
        add('id', 'id 1.5', { ...message, id: 1.5 });
        add('id', 'id null', { ...message, id: null });
        add('id', 'id an object', { ...message, id: { n: 1 } });
        add('id', 'id removed', withoutKey(message, 'id'));
    }
    if (kind === 'notification') add('id', 'id added', { ...message, id: 7 });
    if (kind === 'request' || kind === 'notification') {
        if ('params' in message) add('params', 'params removed', withoutKey(message, 'params'));
        add('params', 'params null', { ...message, params: null });
        add('params', 'params an array', { ...message, params: [] });
    }
    return out;
}

/** What to make for a protocol: `{ label, answers?, make(ctx) -> message }`, one a message
 * kind. */
function targets(P) {
    const root = P.schema;
    const out = [];
    const idSchema = { $ref: '#/$defs/RequestId' };
    const id = (ctx) => {
        const v = make(root, idSchema, ['id'], ctx, 1);
        return v === null ? 1 : v;
    };
    for (const e of P.methods.values()) {
        if (P.name === 'mcp') {
            out.push({ label: e.def, method: e.method, make: (ctx) => make(root, { $ref: `#/$defs/${e.def}` }, [], ctx, 0) });
        } else {
            out.push({
                label: e.def,
                method: e.method,
                make: (ctx) => {
                    const params = make(root, { $ref: `#/$defs/${e.paramsDef}` }, ['params'], ctx, 1);
                    return e.kind === 'request' ? { jsonrpc: '2.0', id: id(ctx), method: e.method, params } : { jsonrpc: '2.0', method: e.method, params };
                },
            });
        }
        for (const r of e.resultDefs ?? []) {
            out.push({
                label: `${r} (${e.method})`,
                answers: e.method,
                make: (ctx) => ({ jsonrpc: '2.0', id: id(ctx), result: make(root, { $ref: `#/$defs/${r}` }, ['result'], ctx, 1) }),
            });
        }
    }
    const error = P.name === 'mcp' ? 'Error' : 'Error';
    out.push({
        label: 'error response',
        make: (ctx) => ({ jsonrpc: '2.0', id: id(ctx), error: make(root, { $ref: `#/$defs/${error}` }, ['error'], ctx, 1) }),
    });
    return out;
}

/**
 * The generated lines of a protocol (`P` from lib.mjs's `loadProtocol`): `{ where, note,
 * message, answers? }`, valid messages first for each kind, then their mutations. Also
 * `stats`: valid messages made, given up, mutations.
 */
export function generate(P, seed = SEED) {
    const rng = random(seed);
    const lines = [];
    const seen = new Set();
    const stats = { valid: 0, givenUp: [], mutations: 0 };
    const push = (line) => {
        const key = JSON.stringify([line.message, line.answers ?? null]);
        if (seen.has(key)) return false;
        seen.add(key);
        lines.push({ where: `generated:${lines.length + 1}`, ...line });
        return true;
    };
    for (const target of targets(P)) {
        for (const mode of ['min', 'full', 'mixed']) {
            let made = null;
            for (let t = 0; t < TRIES && made === null; t++) {
                const ctx = { rng, mode, sites: [] };
                let message;
                try {
                    message = target.make(ctx);
                } catch (e) {
                    if (String(e.message).startsWith('too deep')) continue;
                    throw e;
                }
                const line = { message, answers: target.answers };
                if (P.verdict(line).ok) made = { message, sites: ctx.sites };
            }
            if (made === null) {
                stats.givenUp.push(`${target.label} ${mode}`);
                continue;
            }
            const label = `${target.label} ${mode}`;
            if (!push({ note: `valid: ${label}`, message: made.message, answers: target.answers })) continue;
            stats.valid++;
            // Mutations: every kind once where it applies, then others by chance, up to the bound.
            const all = [...envelopeMutations(made.message), ...made.sites.flatMap((s) => mutationsAt(made.message, s))];
            const byKind = new Map();
            for (const m of all) {
                if (!byKind.has(m.kind)) byKind.set(m.kind, []);
                byKind.get(m.kind).push(m);
            }
            const chosen = [];
            for (const ms of byKind.values()) chosen.push(ms.splice(rng.int(ms.length), 1)[0]);
            const rest = [...byKind.values()].flat();
            while (chosen.length < MUTATIONS_PER_MESSAGE && rest.length > 0) chosen.push(rest.splice(rng.int(rest.length), 1)[0]);
            for (const m of chosen) {
                if (push({ note: `${label}: ${m.note}`, message: m.message, answers: target.answers })) stats.mutations++;
            }
        }
    }
    return { lines, stats };
}

// As a command: the lines on stdout.
if (import.meta.url === `file://${process.argv[1]}`) {
    const { ajv2020 } = await import('./ajv.mjs');
    const { loadProtocol } = await import('./lib.mjs');
    const protocol = process.argv[2];
    const s = process.argv.indexOf('--seed');
    const seed = s > 0 ? Number(process.argv[s + 1]) : SEED;
    if (protocol !== 'mcp' && protocol !== 'acp') {
        console.error('usage: node tests/official/generate.mjs mcp|acp [--seed N]');
        process.exit(2);
    }
    const P = loadProtocol(protocol, await ajv2020());
    const { lines, stats } = generate(P, seed);
    for (const l of lines) process.stdout.write(`${JSON.stringify({ message: l.message, answers: l.answers, note: l.note })}\n`);
    console.error(`${protocol}: seed ${seed}: ${lines.length} lines, ${stats.valid} valid, ${stats.mutations} mutations, given up: ${stats.givenUp.join(', ') || 'none'}`);
}
