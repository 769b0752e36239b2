// What the differential test against the official schemas shares (tests/official/README.md):
// each protocol's vendored official JSON Schema, its methods as that schema names them, the
// official verdict on a message (ajv, draft 2020-12, formats as annotations), and a seeded
// random generator.
//
// This module imports only node's builtins: ajv comes from the caller (`loadProtocol(name,
// Ajv2020)`), resolved in an npm package's node_modules (run.mjs says which).

import { readFileSync } from 'node:fs';

/** tests/official/, where the vendored schemas live. */
export const HERE = new URL('./', import.meta.url);

/** The protocols under test. */
export const PROTOCOLS = ['mcp', 'acp'];

/**
 * MCP's result of each request method, which the official schema does not state
 * (`JSONRPCResultResponse.result` is any `Result`): schema.ts's request and result types by
 * name (`CallToolRequest` -> `CallToolResult`), and `CreateTaskResult` for the three requests
 * a receiver may answer with a task (`params.task`, "Task augmentation" in the specification).
 */
const MCP_RESULTS = {
    initialize: ['InitializeResult'],
    ping: ['EmptyResult'],
    'resources/list': ['ListResourcesResult'],
    'resources/templates/list': ['ListResourceTemplatesResult'],
    'resources/read': ['ReadResourceResult'],
    'resources/subscribe': ['EmptyResult'],
    'resources/unsubscribe': ['EmptyResult'],
    'prompts/list': ['ListPromptsResult'],
    'prompts/get': ['GetPromptResult'],
    'tools/list': ['ListToolsResult'],
    'tools/call': ['CallToolResult', 'CreateTaskResult'],
    'tasks/get': ['GetTaskResult'],
    'tasks/result': ['GetTaskPayloadResult'],
    'tasks/cancel': ['CancelTaskResult'],
    'tasks/list': ['ListTasksResult'],
    'logging/setLevel': ['EmptyResult'],
    'completion/complete': ['CompleteResult'],
    'sampling/createMessage': ['CreateMessageResult', 'CreateTaskResult'],
    'roots/list': ['ListRootsResult'],
    'elicitation/create': ['ElicitResult', 'CreateTaskResult'],
};

/** A method of a protocol, as its official schema names it. */
// { method, kind: 'request' | 'notification', from: ['client'|'server'|'agent'], def,
//   paramsDef (ACP: the def `params` is checked against; MCP: the def of `params`, or null),
//   paramsRequired, resultDefs (requests) }

/** The methods of MCP: the members of `ClientRequest`, `ServerRequest`, `ClientNotification`
 * and `ServerNotification`, each with its `method` const. */
function mcpMethods(defs) {
    const methods = new Map();
    const sides = [
        ['ClientRequest', 'request', 'client'],
        ['ServerRequest', 'request', 'server'],
        ['ClientNotification', 'notification', 'client'],
        ['ServerNotification', 'notification', 'server'],
    ];
    for (const [union, kind, from] of sides) {
        for (const member of defs[union].anyOf) {
            const def = member.$ref.replace('#/$defs/', '');
            const d = defs[def];
            const method = d.properties.method.const;
            const known = methods.get(method);
            if (known !== undefined) {
                if (known.def !== def) throw new Error(`mcp: ${method} is both ${known.def} and ${def}`);
                known.from.push(from);
                continue;
            }
            const params = d.properties.params?.$ref?.replace('#/$defs/', '') ?? null;
            const entry = { method, kind, from: [from], def, paramsDef: params, paramsRequired: d.required.includes('params') };
            if (kind === 'request') {
                entry.resultDefs = MCP_RESULTS[method];
                if (entry.resultDefs === undefined) throw new Error(`mcp: no result for ${method}`);
                for (const r of entry.resultDefs) if (!(r in defs)) throw new Error(`mcp: no def ${r}`);
            }
            methods.set(method, entry);
        }
    }
    for (const method of Object.keys(MCP_RESULTS)) {
        if (methods.get(method)?.kind !== 'request') throw new Error(`mcp: ${method} is no request`);
    }
    return methods;
}

/** The methods of ACP: the defs with an `x-method`; `x-side` names the side that receives
 * (`agent`: the client sends it; `client`: the agent does; `protocol`: either). */
function acpMethods(root) {
    const defs = root.$defs;
    const methods = new Map();
    const senders = { agent: ['client'], client: ['agent'], protocol: ['client', 'agent'] };
    const requests = new Set();
    const notifications = new Set();
    for (const [union, set] of [
        ['ClientRequest', requests],
        ['AgentRequest', requests],
        ['ClientNotification', notifications],
        ['AgentNotification', notifications],
    ]) {
        for (const ref of refsUnder(defs[union].properties.params)) set.add(ref);
    }
    // `$/cancel_request` is the root's `ProtocolLevel` message, in no side's union.
    for (const ref of refsUnder(root.anyOf.find((a) => a.title === 'ProtocolLevel'))) notifications.add(ref);
    const results = new Map();
    for (const [def, d] of Object.entries(defs)) {
        const method = d['x-method'];
        if (method === undefined) continue;
        const from = senders[d['x-side']];
        if (requests.has(def) || notifications.has(def)) {
            methods.set(method, {
                method,
                kind: requests.has(def) ? 'request' : 'notification',
                from,
                def,
                paramsDef: def,
                paramsRequired: false,
            });
        } else {
            results.set(method, def);
        }
    }
    for (const entry of methods.values()) {
        if (entry.kind !== 'request') continue;
        const r = results.get(entry.method);
        if (r === undefined) throw new Error(`acp: no result for ${entry.method}`);
        entry.resultDefs = [r];
    }
    return methods;
}

/** Every `$ref` name in a subschema. */
function refsUnder(schema) {
    const out = [];
    const walk = (s) => {
        if (Array.isArray(s)) s.forEach(walk);
        else if (s !== null && typeof s === 'object') {
            if (typeof s.$ref === 'string') out.push(s.$ref.replace('#/$defs/', ''));
            for (const v of Object.values(s)) walk(v);
        }
    };
    walk(schema);
    return out;
}

/**
 * One protocol's official schema: its `$defs`, methods, and the official verdict.
 * `Ajv2020` is ajv's draft 2020-12 class (`ajv/dist/2020.js`).
 */
export function loadProtocol(name, Ajv2020) {
    const schema = JSON.parse(readFileSync(new URL(`${name}/schema.json`, HERE), 'utf8'));
    const defs = schema.$defs;
    // Formats are annotations, as draft 2020-12 says by default (the format-annotation
    // vocabulary): no format is asserted. `strict: false` lets the schemas' own keywords
    // (`x-method`, `discriminator` without ajv's option) through.
    const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
    const id = `urn:official:${name}`;
    ajv.addSchema({ ...schema, $id: id }, id);
    const compiled = new Map();
    const def = (n) => {
        let v = compiled.get(n);
        if (v === undefined) {
            if (n !== '' && !(n in defs)) throw new Error(`${name}: no $defs entry ${n}`);
            v = ajv.compile({ $ref: n === '' ? id : `${id}#/$defs/${n}` });
            compiled.set(n, v);
        }
        return v;
    };
    const check = (n, value) => {
        const v = def(n);
        return v(value) ? null : `${n === '' ? 'the schema root' : n}: ${ajv.errorsText(v.errors)}`;
    };
    const methods = name === 'mcp' ? mcpMethods(defs) : acpMethods(schema);
    return { name, schema, defs, methods, check, verdict: (line) => officialVerdict(name, methods, check, line) };
}

/** What a message is, by its keys: `request`, `notification`, `result`, `error`, or null. */
export function kindOf(message) {
    if (message === null || typeof message !== 'object' || Array.isArray(message)) return null;
    if ('method' in message) return 'id' in message ? 'request' : 'notification';
    if ('result' in message) return 'result';
    if ('error' in message) return 'error';
    return null;
}

/**
 * The official verdict on one line (`{ message, answers? }`): `{ ok: true }` or
 * `{ ok: false, why }`.
 *
 * - MCP: a request or notification by its `method`'s def (`CallToolRequest`, the whole
 *   message), a method none names by `JSONRPCRequest` / `JSONRPCNotification`; a result by
 *   `JSONRPCResultResponse` and its `result` by the result def of the method it answers (any
 *   of them, for the task-augmentable three); an error by `JSONRPCErrorResponse`.
 * - ACP: every message by the schema's root and, for a known method, by its sender's def
 *   (`ClientRequest`, `AgentNotification`; a result by its answerer's `AgentResponse` or
 *   `ClientResponse`), then a request's or notification's `params` by the def whose
 *   `x-method` is its `method` (absent params checked as `null`: the SDK parses
 *   `message.params` with the def's schema), a result's `result` by the def of the method it
 *   answers.
 * - Anything else (not an object, no method, result or error) by the root: MCP's
 *   `JSONRPCMessage`, ACP's root.
 */
function officialVerdict(protocol, methods, check, line) {
    const m = line.message;
    const kind = kindOf(m);
    const fail = (why) => ({ ok: false, why });
    const all = (...whys) => {
        const why = whys.find((w) => w !== null);
        return why === undefined ? { ok: true } : fail(why);
    };
    const entry = kind === 'request' || kind === 'notification' ? methods.get(m.method) : undefined;
    const answered = kind === 'result' && line.answers !== undefined ? methods.get(line.answers) : undefined;
    const resultCheck = () => {
        if (answered === undefined) return null;
        const whys = answered.resultDefs.map((r) => check(r, m.result));
        return whys.includes(null) ? null : whys.join(' / ');
    };
    if (protocol === 'mcp') {
        switch (kind) {
            case 'request':
                return all(entry?.kind === 'request' ? check(entry.def, m) : check('JSONRPCRequest', m));
            case 'notification':
                return all(entry?.kind === 'notification' ? check(entry.def, m) : check('JSONRPCNotification', m));
            case 'result':
                return all(check('JSONRPCResultResponse', m), resultCheck());
            case 'error':
                return all(check('JSONRPCErrorResponse', m));
            default:
                return all(check('JSONRPCMessage', m));
        }
    }
    const root = check('', m);
    // The root is an `anyOf` that lets a request with a bad `id` pass as a notification (a
    // notification's def does not forbid `id`): a message with a known method is also checked by
    // its sender's def (`ClientRequest`, `AgentNotification`), a result by its answerer's
    // (`AgentResponse` answers what the client asks).
    const side = (from, what) => (from.length === 1 ? check(`${from[0] === 'client' ? 'Client' : 'Agent'}${what}`, m) : null);
    switch (kind) {
        case 'request':
        case 'notification':
            if (entry === undefined || entry.kind !== kind) return all(root);
            return all(root, side(entry.from, kind === 'request' ? 'Request' : 'Notification'), check(entry.paramsDef, 'params' in m ? m.params : null));
        case 'result':
            if (answered === undefined) return all(root);
            return all(root, side(answered.from.map((f) => (f === 'client' ? 'agent' : 'client')), 'Response'), resultCheck());
        default:
            return all(root);
    }
}

/** A seeded generator of 32-bit numbers (mulberry32): the same seed, the same corpus. */
export function random(seed) {
    let a = seed >>> 0;
    const next = () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    return {
        next,
        int: (n) => Math.floor(next() * n),
        pick: (xs) => xs[Math.floor(next() * xs.length)],
        chance: (p) => next() < p,
    };
}

/**
 * The lines of an examples file (`{"message", "def"?, "answers"?, ...}` a line), each with
 * `where` (file:line), `message` and, for a response, `answers`: the line's own, else the
 * method of the latest request before it in the file with the same `id`.
 */
export function readExamples(url, where) {
    const lines = [];
    const asked = new Map();
    readFileSync(url, 'utf8')
        .split('\n')
        .forEach((raw, i) => {
            if (raw.trim() === '') return;
            const l = JSON.parse(raw);
            const m = l.message;
            const kind = kindOf(m);
            if (kind === 'request') asked.set(JSON.stringify(m.id), m.method);
            let answers = l.answers;
            // A line with a `source` (extract-examples.mjs) says itself what it answers.
            if (answers === undefined && l.source === undefined && (kind === 'result' || kind === 'error')) answers = asked.get(JSON.stringify(m.id));
            lines.push({ where: `${where}:${i + 1}`, message: m, answers, note: l.note ?? l.source ?? l.def ?? '' });
        });
    return lines;
}
