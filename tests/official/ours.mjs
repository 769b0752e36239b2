// Our judges of the differential test (run.mjs): Rust through `cargo xtask validate`, Zod through
// the generated package bindings/<p>-contracts, ajv on that package's schema.json. Each is
// `{ name, missing?, echoes?, verdicts(lines) }`, where `verdicts` answers, for each line,
// `{ ok, why?, echo? }`: `echo` is null when an accepted message was written back equal as
// JSON, else what differs.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { kindOf } from './lib.mjs';

/** Runs `cargo xtask validate` with `args`, the texts on stdin, and answers its verdict lines
 * (the raw text of each). */
function validate(root, args, texts) {
    return new Promise((resolve, reject) => {
        const child = spawn('cargo', ['xtask', 'validate', ...args], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
        child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
        child.on('error', reject);
        child.on('close', (code) => {
            const lines = out.split('\n').filter((l) => l !== '');
            if (code !== 0 || lines.length !== texts.length) {
                resolve({
                    failed: `cargo xtask validate ${args.join(' ')}: exit ${code}, ${lines.length} verdicts for ${texts.length} lines\n${err.trim().split('\n').slice(-5).join('\n')}`,
                    unknownType: code === 2 && lines.length === 0 && /no table entry is called/.test(err),
                });
            } else resolve({ lines });
        });
        child.stdin.on('error', () => {});
        child.stdin.end(texts.map((t) => `${t}\n`).join(''));
    });
}

/**
 * A JSON text parsed with each number kept as its token (`{ $number: '50.0' }`), so that a
 * number written back respelled (`50` as `50.0`) is seen.
 */
export function parseExact(text) {
    let i = 0;
    const ws = () => {
        while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
    };
    const value = () => {
        ws();
        const c = text[i];
        if (c === '{') {
            i++;
            const out = {};
            ws();
            if (text[i] === '}') {
                i++;
                return out;
            }
            for (;;) {
                ws();
                const k = string();
                ws();
                i++; // ':'
                out[k] = value();
                ws();
                if (text[i++] === '}') return out;
            }
        }
        if (c === '[') {
            i++;
            const out = [];
            ws();
            if (text[i] === ']') {
                i++;
                return out;
            }
            for (;;) {
                out.push(value());
                ws();
                if (text[i++] === ']') return out;
            }
        }
        if (c === '"') return string();
        const m = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 400));
        if (m === null) throw new Error(`not JSON at ${i}`);
        i += m[0].length;
        if (m[0] === 'true') return true;
        if (m[0] === 'false') return false;
        if (m[0] === 'null') return null;
        return { $number: m[0] };
    };
    const string = () => {
        const start = i;
        i++;
        while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
        i++;
        return JSON.parse(text.slice(start, i));
    };
    const v = value();
    return v;
}

/** Where two exact trees differ (keys in any order), or null. */
export function differs(a, b, path = '') {
    if (a !== null && typeof a === 'object' && b !== null && typeof b === 'object') {
        if ('$number' in a || '$number' in b) return a.$number === b.$number ? null : `${path || '(root)'}: ${a.$number ?? JSON.stringify(a)} written back as ${b.$number ?? JSON.stringify(b)}`;
        if (Array.isArray(a) !== Array.isArray(b)) return `${path || '(root)'}: an array and an object`;
        if (Array.isArray(a)) {
            if (a.length !== b.length) return `${path || '(root)'}: ${a.length} items written back as ${b.length}`;
            for (let k = 0; k < a.length; k++) {
                const d = differs(a[k], b[k], `${path}[${k}]`);
                if (d !== null) return d;
            }
            return null;
        }
        for (const k of Object.keys(a)) if (!(k in b)) return `${path}.${k}: dropped`;
        for (const k of Object.keys(b)) if (!(k in a)) return `${path}.${k}: added`;
        for (const k of Object.keys(a)) {
            const d = differs(a[k], b[k], `${path}.${k}`);
            if (d !== null) return d;
        }
        return null;
    }
    return a === b ? null : `${path || '(root)'}: ${JSON.stringify(a)} written back as ${JSON.stringify(b)}`;
}

/** The value text of an accepted echo verdict line (`{"ok":true,"value":...}`). */
function echoedText(line) {
    const at = line.indexOf('"value":');
    if (at < 0) return null;
    return line.slice(at + '"value":'.length, line.lastIndexOf('}'));
}

/** Rust: each message through `--as message --echo`, then each result's `result` through
 * `--as result --type <method>` where the line says which request it answers. */
function rustJudge(protocol, root) {
    return {
        name: 'rust',
        echoes: true,
        async verdicts(lines) {
            const texts = lines.map((l) => JSON.stringify(l.message));
            const whole = await validate(root, ['--protocol', protocol, '--as', 'message', '--echo'], texts);
            if (whole.failed !== undefined) throw new Error(whole.failed);
            const out = whole.lines.map((raw, i) => {
                const v = JSON.parse(raw);
                if (!v.ok) return { ok: false, why: `${v.stage}: ${v.message}` };
                const text = echoedText(raw);
                const echo = text === null ? 'no "value" in the verdict' : differs(parseExact(texts[i]), parseExact(text));
                return { ok: true, echo };
            });
            // Results by the method they answer, one run per method.
            const byMethod = new Map();
            lines.forEach((l, i) => {
                if (out[i].ok && kindOf(l.message) === 'result' && l.answers !== undefined) {
                    if (!byMethod.has(l.answers)) byMethod.set(l.answers, []);
                    byMethod.get(l.answers).push(i);
                }
            });
            // A few runs at a time: each is mostly cargo's start, not work.
            const runs = [...byMethod].map(([method, idx]) => ({ method, idx }));
            const pending = [...runs];
            await Promise.all(
                Array.from({ length: 4 }, async () => {
                    for (let run = pending.shift(); run !== undefined; run = pending.shift()) {
                        run.r = await validate(root, ['--protocol', protocol, '--as', 'result', '--type', run.method, '--echo'], run.idx.map((i) => JSON.stringify(lines[i].message.result)));
                    }
                }),
            );
            for (const { method, idx, r } of runs) {
                if (r.failed !== undefined && r.unknownType) {
                    // A method no request table entry holds (`--type` is checked before any
                    // input, a usage error): its results are refused, as the tables refuse it.
                    for (const i of idx) out[i] = { ok: false, why: `result of ${method}: no table entry` };
                    continue;
                }
                if (r.failed !== undefined) throw new Error(r.failed);
                r.lines.forEach((raw, k) => {
                    const v = JSON.parse(raw);
                    const i = idx[k];
                    if (!v.ok) out[i] = { ok: false, why: `result of ${method}: ${v.stage}: ${v.message}` };
                    else if (out[i].echo === null) {
                        // The result as the request's typed result writes it back.
                        const text = echoedText(raw);
                        const d = text === null ? 'no "value" in the verdict' : differs(parseExact(JSON.stringify(lines[i].message.result)), parseExact(text), '.result');
                        if (d !== null) out[i] = { ok: true, echo: `typed as the result of ${method}: ${d}` };
                    }
                });
            }
            return out;
        },
    };
}

/** The name of the envelope's def in our schema: `JSONRPCRequest` (MCP), `JsonRpcRequest` (ACP). */
function envelopeDef(names, kind) {
    const want = `jsonrpc${kind}`.toLowerCase();
    const found = names.find((n) => n.toLowerCase() === want);
    if (found === undefined) throw new Error(`our schema.json has no $defs entry for JSON-RPC's ${kind}`);
    return found;
}

/**
 * ajv on our generated JSON Schema, in the stages Rust and Zod take: the envelope by its def
 * (`JSONRPCRequest`, ...), then a request's `params` by `request:<method>:payload` (absent:
 * `{}`), a notification's by `event:<method>`, a result's `result` by
 * `request:<method>:result` of the method it answers; a method the table does not know is
 * refused, as by the tables.
 */
function schemaJudge(protocol, schemaUrl, Ajv2020) {
    return {
        name: 'schema',
        async verdicts(lines) {
            const schema = JSON.parse(readFileSync(schemaUrl, 'utf8'));
            // As tests/corpus/runner.mjs: `format: "uri"` is an annotation, the schema's own
            // `pattern` carries the check Rust and Zod make.
            const ajv = new Ajv2020({ strict: false, allErrors: false, formats: { uri: true, byte: true } });
            const id = schema.$id ?? `urn:ours:${protocol}`;
            ajv.addSchema({ ...schema, $id: id });
            const defs = schema.$defs;
            const names = Object.keys(defs);
            const compiled = new Map();
            const check = (name, value) => {
                if (!(name in defs)) return `no table entry: ${name}`;
                let v = compiled.get(name);
                if (v === undefined) {
                    v = ajv.compile({ $ref: `${id}#/$defs/${encodeURIComponent(name)}` });
                    compiled.set(name, v);
                }
                return v(value) ? null : `${name}: ${ajv.errorsText(v.errors)}`;
            };
            const def = {
                request: envelopeDef(names, 'Request'),
                notification: envelopeDef(names, 'Notification'),
                result: envelopeDef(names, 'ResultResponse'),
                error: envelopeDef(names, 'ErrorResponse'),
                message: envelopeDef(names, 'Message'),
            };
            return lines.map((l) => {
                const m = l.message;
                const kind = kindOf(m);
                const stages = [check(def[kind ?? 'message'], m)];
                if (stages[0] === null) {
                    const params = m.params === undefined ? {} : m.params;
                    if (kind === 'request') stages.push(check(`request:${m.method}:payload`, params));
                    if (kind === 'notification') stages.push(check(`event:${m.method}`, params));
                    if (kind === 'result' && l.answers !== undefined) stages.push(check(`request:${l.answers}:result`, m.result));
                }
                const why = stages.find((w) => w !== null);
                return why === undefined ? { ok: true } : { ok: false, why };
            });
        },
    };
}

/**
 * Zod, through the package's typed message parse (`parseJSONRPCMessageTyped`: the envelope,
 * then `params` by `method`), and a result's `result` by `parse<P>RequestResult(method, ...)`.
 * An accepted message's parsed value must hold every key the input has (`echo`).
 */
async function zodJudge(protocol, pkg) {
    const api = await import(new URL('dist/src/index.js', pkg).href);
    const cap = protocol[0].toUpperCase() + protocol.slice(1);
    const parseMessage = Object.entries(api).find(([n]) => /^parse(JSONRPC|JsonRpc)MessageTyped$/.test(n))?.[1];
    const parseResult = api[`parse${cap}RequestResult`];
    const isRequest = api[`is${cap}RequestType`];
    if (parseMessage === undefined || parseResult === undefined || isRequest === undefined) {
        return { name: 'zod', missing: `bindings/${protocol}-contracts exports no parse...MessageTyped, parse${cap}RequestResult or is${cap}RequestType` };
    }
    return {
        name: 'zod',
        echoes: true,
        async verdicts(lines) {
            return lines.map((l) => {
                const r = parseMessage(l.message);
                if (!r.ok) return { ok: false, why: `${r.stage}: ${r.message}` };
                if (kindOf(l.message) === 'result' && l.answers !== undefined) {
                    if (!isRequest(l.answers)) return { ok: false, why: `no table entry ${l.answers}` };
                    const res = parseResult(l.answers, l.message.result);
                    if (!res.ok) return { ok: false, why: `result of ${l.answers}: ${res.message}` };
                }
                return { ok: true, echo: differs(parseExact(JSON.stringify(l.message)), parseExact(JSON.stringify(asSent(r.value, l.message)))) };
            });
        },
    };
}

/** Zod's typed value without the `params: {}` the typed form reads when the message has none
 * (the package's documented reading, as its test/examples.test.ts takes it). */
function asSent(value, message) {
    if (message === null || typeof message !== 'object' || 'params' in message) return value;
    if (value === null || typeof value !== 'object' || JSON.stringify(value.params) !== '{}') return value;
    const { params: _, ...rest } = value;
    return rest;
}

/** Our judges of a protocol: each available one, or with `missing` saying why not. */
export async function ourJudges(protocol, root, Ajv2020, only = []) {
    const wanted = (name) => only.length === 0 || only.includes(name);
    const pkg = new URL(`bindings/${protocol}-contracts/`, root);
    const judges = [];
    if (wanted('rust')) {
        const rust = rustJudge(protocol, root);
        // Whether the Rust validator knows the protocol's messages yet.
        const probe = await validate(root, ['--protocol', protocol, '--as', 'message', '--echo'], ['{"jsonrpc":"2.0","method":"ping","id":1}']);
        if (probe.failed !== undefined) rust.missing = probe.failed.split('\n').slice(0, 3).join(' / ');
        judges.push(rust);
    }
    if (wanted('zod')) {
        if (existsSync(new URL('dist/src/index.js', pkg))) judges.push(await zodJudge(protocol, pkg));
        else judges.push({ name: 'zod', missing: `bindings/${protocol}-contracts is not built (npm ci and npm run build there)` });
    }
    if (wanted('schema')) {
        const schemaUrl = new URL('schema.json', pkg);
        if (existsSync(schemaUrl)) judges.push(schemaJudge(protocol, schemaUrl, Ajv2020));
        else judges.push({ name: 'schema', missing: `no bindings/${protocol}-contracts/schema.json` });
    }
    return judges;
}
