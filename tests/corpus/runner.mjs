// The corpus runner of the TypeScript packages: the shared corpus through a package's
// generated Zod schemas and its generated JSON Schema (ajv). Each package's
// test/corpus.test.ts is a small adapter that loads this module (by a path computed at run
// time, so it stays outside the package's tsc rootDir) and calls `runCorpus` with what is
// particular to its protocol: how a line's `as` reaches its Zod parse functions and its
// `$defs`. The types are in runner.d.mts.
//
// Every line of tests/corpus/<protocol>.jsonl (hand-written) and
// tests/corpus/derived/<protocol>.jsonl (derived from the model by `cargo xtask codegen`) is
// checked twice, as a client would: by Zod, where the verdict, the stage and (where the line
// gives them) the set of paths the prettified message names must be the line's; and by ajv
// (draft 2020-12, code-point string lengths) against schema.json's `$defs`, where the verdict
// and the stage must be the line's. Zod's message must also be Rust's, word for word, on every
// refused line whose text is JSON: tests/corpus/messages/ records Rust's (written by
// contracts/tests/corpus.rs with UPDATE_EXPECT=1, checked by it otherwise).
//
// The input is the line's `raw` text or its `input` as JSON; text that is not JSON is an
// envelope refusal. A line's `paths: []` means one issue at the root. Every disagreement is
// reported with its file, line and note; contracts/tests/corpus.rs and
// contracts/tests/connect_corpus.rs run the same lines through the Rust validators.
//
// This module imports only node's builtins: ajv comes from the calling package (`Ajv`), so it
// resolves in the package's node_modules.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

/** The corpus directory: this file's own, or `CONTRACTS_CORPUS_DIR` (where the fuzzer's
 * differential run, `cargo xtask fuzz --differential`, writes generated lines and Rust's
 * messages on them). */
const CORPUS = process.env.CONTRACTS_CORPUS_DIR
    ? pathToFileURL(`${process.env.CONTRACTS_CORPUS_DIR}/`)
    : new URL('./', import.meta.url);

/** The lines of one corpus file, relative to tests/corpus/. */
function readCorpus(relative) {
    const url = new URL(relative, CORPUS);
    assert.ok(existsSync(url), `${relative} is missing (run cargo xtask codegen)`);
    const lines = [];
    readFileSync(url, 'utf8')
        .split('\n')
        .forEach((raw, i) => {
            if (raw.trim() === '') return;
            const where = `tests/corpus/${relative}:${i + 1}`;
            const l = JSON.parse(raw);
            const text = received(typeof l.raw === 'string' ? l.raw : JSON.stringify(l.input));
            assert.equal(typeof l.as, 'string', `${where}: no "as"`);
            assert.equal(typeof l.ok, 'boolean', `${where}: no "ok"`);
            lines.push({
                number: i + 1,
                source: raw,
                where,
                as: l.as,
                type: l.type,
                text,
                ok: l.ok,
                stage: l.stage,
                paths: l.paths,
                note: String(l.note ?? ''),
            });
        });
    return lines;
}

/** A frame's text as its receiver reads it: its UTF-8 bytes through `TextDecoder`, which drops a
 * leading byte order mark (as a browser's WebSocket, the node port and the Rust ports do). */
function received(text) {
    return new TextDecoder().decode(new TextEncoder().encode(text));
}

/** How to make the message records again. */
const REMAKE = 'run UPDATE_EXPECT=1 cargo test -p adecore-contracts --test corpus';

/** FNV-1a (32 bits) of a line's UTF-8 bytes, in hex, as contracts/tests/common/mod.rs computes it. */
function fingerprint(line) {
    let h = 0x811c9dc5;
    for (const b of new TextEncoder().encode(line)) h = Math.imul(h ^ b, 0x01000193) >>> 0;
    return h.toString(16).padStart(8, '0');
}

/** Rust's messages on the refused lines of one corpus file, by line number, each with the
 * fingerprint of the line it was made from. */
function readMessages(relative) {
    const url = new URL(`messages/${relative}`, CORPUS);
    assert.ok(existsSync(url), `messages/${relative} is missing (${REMAKE})`);
    const out = new Map();
    for (const raw of readFileSync(url, 'utf8').split('\n')) {
        if (raw.trim() === '') continue;
        const m = JSON.parse(raw);
        out.set(m.line, { of: m.of, message: m.message });
    }
    out.file = relative;
    return out;
}

/** Whether a line's text is JSON (a refusal of other text is worded by each parser). */
function isJson(text) {
    return parseJson(text).ok;
}

/** The paths a prettified message names, one per issue: `''` for an issue at the root. */
function pathsOf(message) {
    const paths = [];
    for (const line of message.split('\n')) {
        // The count of the issues beyond those shown names no path.
        if (/^✖ and \d+ more issues?$/.test(line)) continue;
        if (line.startsWith('✖ ')) paths.push('');
        else if (line.startsWith('  → at ') && paths.length > 0) paths[paths.length - 1] = line.slice('  → at '.length);
    }
    return paths;
}

/** A set of paths, sorted, the root as `''`: what the line and a validator are compared on. */
function pathSet(paths) {
    const set = new Set(paths.length === 0 ? [''] : paths);
    return [...set].sort();
}

/** A Zod refusal at `stage`, with the paths its prettified message names. */
export function refusal(stage, r) {
    const message = r.ok ? '' : r.message;
    return { ok: false, stage, paths: pathsOf(message), message };
}

/**
 * The JSON Schema verdict of an app that extends the agent, through its schema.json's `$defs`
 * in the same two stages as Rust: a frame by the agent's envelope (`agent.Request`,
 * `agent.ServerFrame`), then by the app's named root (`#Request`, `#ServerFrame`), which
 * checks the payload by name in the app's tables; a bare payload, result or event by its
 * entry; a `type` by its name.
 */
export function appSchemaVerdict(line, input, defs) {
    switch (line.as) {
        case 'request': {
            const frame = defs.check('agent.Request', input, 'envelope');
            if (!frame.ok) return frame;
            return defs.root('Request', input, 'table');
        }
        case 'server': {
            const frame = defs.check('agent.ServerFrame', input, 'envelope');
            if (!frame.ok) return frame;
            return defs.root('ServerFrame', input, 'table');
        }
        case 'payload':
        case 'result':
            return defs.check(`request:${line.type}:${line.as}`, input, 'table');
        case 'event':
            return defs.check(`event:${line.type}`, input, 'table');
        case 'type':
            return defs.check(line.type ?? '', input, 'table');
        default:
            throw new Error(`${line.where}: unknown "as": ${line.as}`);
    }
}

function parseJson(text) {
    try {
        return { ok: true, value: JSON.parse(text) };
    } catch (e) {
        return { ok: false, message: e instanceof Error ? e.message : String(e) };
    }
}

/** The verdict on text that is not JSON: an envelope refusal. */
function notJson(json) {
    return { ok: false, stage: 'envelope', message: json.message };
}

/** A verdict function over parsed input: text that is not JSON is an envelope refusal. */
function onJson(verdict) {
    return (line) => {
        const json = parseJson(line.text);
        return json.ok ? verdict(line, json.value) : notJson(json);
    };
}

/** The `$defs` of a package's schema.json, through ajv: `check`, `root` (a named root such as
 * `#Request`, which checks a frame whole), `has` and `valid`. */
function schemaChecks(packageUrl, Ajv) {
    const schema = JSON.parse(readFileSync(new URL('schema.json', packageUrl), 'utf8'));
    // `format: "uri"` is an annotation here: the schema's `pattern` carries the check Rust and Zod make.
    const ajv = new Ajv({ strict: false, allErrors: true, formats: { uri: true } });
    // An app's schema.json may have no `$id`: it is registered under a key of its own.
    const id = schema.$id ?? 'urn:contracts-corpus:schema.json';
    if (schema.$id === undefined) ajv.addSchema(schema, id);
    else ajv.addSchema(schema);
    const compiled = new Map();
    /** The validator of one `$defs` entry. */
    const def = (name) => {
        let v = compiled.get(name);
        if (v === undefined) {
            assert.ok(name in schema.$defs, `schema.json has no $defs entry ${name}`);
            v = ajv.compile({ $ref: `${id}#/$defs/${encodeURIComponent(name)}` });
            compiled.set(name, v);
        }
        return v;
    };
    /** The validator of a named root (`schema.json#Request`), by its `$anchor`. */
    const root = (name) => {
        const key = `#${name}`;
        let v = compiled.get(key);
        if (v === undefined) {
            v = ajv.compile({ $ref: `${id}${key}` });
            compiled.set(key, v);
        }
        return v;
    };
    return {
        check(name, value, stage) {
            const v = def(name);
            return v(value) ? { ok: true } : { ok: false, stage, message: ajv.errorsText(v.errors) };
        },
        root(name, value, stage) {
            const v = root(name);
            return v(value) ? { ok: true } : { ok: false, stage, message: ajv.errorsText(v.errors) };
        },
        has: (name) => Object.prototype.hasOwnProperty.call(schema.$defs, name),
        valid: (name, value) => def(name)(value),
    };
}

/**
 * What is wrong with `got` for `line`, or null when they agree. `rust` holds Rust's messages
 * by line number, when the messages are compared.
 */
function disagreement(line, got, comparePaths, rust) {
    const wrong = [];
    if (got.ok !== line.ok) wrong.push(`ok ${got.ok}, expected ${line.ok}`);
    else if (!line.ok && line.stage !== undefined && got.stage !== line.stage) wrong.push(`stage ${got.stage}, expected ${line.stage}`);
    else if (!line.ok && comparePaths && line.paths !== undefined && got.paths !== undefined) {
        const want = pathSet(line.paths);
        const have = pathSet(got.paths);
        if (JSON.stringify(want) !== JSON.stringify(have)) wrong.push(`paths ${JSON.stringify(have)}, expected ${JSON.stringify(want)}`);
    }
    if (wrong.length === 0 && !got.ok && rust !== undefined && (line.json?.ok ?? isJson(line.text))) {
        const record = rust.get(line.number);
        if (record === undefined || (record.of !== undefined && record.of !== fingerprint(line.source))) {
            wrong.push(`tests/corpus/messages/${rust.file} is stale: it has no record of this line (${REMAKE})`);
        } else if (got.message !== record.message) {
            wrong.push(`a message other than Rust's:\n    rust:    ${record.message.replace(/\n/g, '\n             ')}`);
        }
    }
    if (wrong.length === 0) return null;
    const message = got.message === undefined ? '' : `\n    message: ${got.message.replace(/\n/g, '\n             ')}`;
    return `${line.where} (${line.note}): ${wrong.join('; ')}${message}`;
}

function run(file, name, verdict, comparePaths, rust) {
    test(`${name}: ${file}`, (t) => {
        const lines = readCorpus(file);
        assert.ok(lines.length > 0, `${file} is empty`);
        const wrong = [];
        for (const line of lines) {
            const d = disagreement(line, judged(verdict, line), comparePaths, rust);
            if (d !== null) wrong.push(d);
        }
        t.diagnostic(`${name}: ${file}: ${lines.length} lines, ${wrong.length} disagreements`);
        assert.equal(wrong.length, 0, `${wrong.length} of ${lines.length} lines disagree:\n${wrong.join('\n')}`);
    });
}

/**
 * Registers the corpus tests of one protocol: Zod (paths and Rust's messages compared) and
 * JSON Schema, over the hand-written and the derived corpus, or the `files` given (relative
 * to tests/corpus/: an app's examples, `derived/documents.jsonl`).
 */
export function runCorpus({ protocol, packageUrl, Ajv, zod, schema, files }) {
    const checks = schemaChecks(packageUrl, Ajv);
    const zodVerdict = onJson(zod);
    const schemaVerdict = onJson((line, input) => schema(line, input, checks));
    if (process.env.CONTRACTS_JUDGE === 'stream') return judgeStream(zod, (line, input) => schema(line, input, checks));
    for (const file of files ?? [`${protocol}.jsonl`, `derived/${protocol}.jsonl`]) {
        run(file, 'zod', zodVerdict, true, readMessages(file));
        run(file, 'json schema', schemaVerdict, false);
    }
}

/** A validator's verdict on a line, a throw made a refusal that names it. */
function judged(verdict, line) {
    try {
        return verdict(line);
    } catch (e) {
        if (e instanceof assert.AssertionError) throw e;
        return { ok: false, message: `threw: ${e instanceof Error ? e.message : String(e)}` };
    }
}

/**
 * The streaming judge (`CONTRACTS_JUDGE=stream`), which the fuzzer's long runs
 * (`cargo xtask fuzz --figure`) feed instead of writing a corpus file per batch. Each stdin
 * line is a corpus line with Rust's verdict and two more fields: `n`, its number, and
 * `message`, Rust's message when it refuses. Each is judged as the corpus tests judge a line
 * (Zod: verdict, stage and message; ajv: verdict and stage). Only a disagreement is written,
 * as `{"n", "as", "type", "raw", "said"}`; at the end of the input, `{"done": <lines judged>}`.
 */
function judgeStream(zod, schema) {
    // The input is parsed once for both validators.
    const zodVerdict = (line) => (line.json.ok ? zod(line, line.json.value) : notJson(line.json));
    const schemaVerdict = (line) => (line.json.ok ? schema(line, line.json.value) : notJson(line.json));
    const input = createInterface({ input: process.stdin, crlfDelay: Infinity });
    const out = [];
    const flush = () => {
        if (out.length > 0) process.stdout.write(out.splice(0).join(''));
    };
    let count = 0;
    input.on('line', (raw) => {
        if (raw.trim() === '') return;
        const l = JSON.parse(raw);
        const line = {
            number: l.n,
            source: raw,
            where: `stream:${l.n}`,
            as: l.as,
            type: l.type,
            text: received(typeof l.raw === 'string' ? l.raw : JSON.stringify(l.input)),
            ok: l.ok,
            stage: l.stage,
            paths: undefined,
            note: String(l.note ?? ''),
        };
        line.json = parseJson(line.text);
        // Rust's message travels on the line: there is no record file to be stale.
        const rust = new Map([[l.n, { message: l.message }]]);
        rust.file = 'stream';
        for (const d of [
            disagreement(line, judged(zodVerdict, line), false, rust),
            disagreement(line, judged(schemaVerdict, line), false),
        ]) {
            if (d !== null) out.push(`${JSON.stringify({ n: l.n, as: l.as, type: l.type, raw: line.text, said: d })}\n`);
        }
        count += 1;
        if (out.length >= 64) flush();
    });
    input.on('close', () => {
        flush();
        process.stdout.write(`${JSON.stringify({ done: count })}\n`);
    });
}
