// The shared corpus through the generated Zod schemas and the generated JSON Schema.
//
// Every line of tests/corpus/agent.jsonl (hand-written) and tests/corpus/derived/agent.jsonl
// (derived from the model by `cargo xtask codegen`) is checked twice, as a client would:
//
// - Zod: `request` is parseRequest, then the payload by name through the table (a name the
//   table does not know is a table-stage refusal); `server` is parseServerFrame, then an
//   event's payload by name; `payload`, `result` and `event` are the table's schema for
//   `type`. The verdict, the stage and (where the line gives them) the set of paths the
//   prettified message names must be the line's.
// - JSON Schema: ajv (draft 2020-12, code-point string lengths) against schema.json's
//   `$defs`, the same two stages; the verdict and the stage must be the line's.
//
// The input is the line's `raw` text or its `input` as JSON; text that is not JSON is an
// envelope refusal. A line's `paths: []` means one issue at the root. Every disagreement is
// reported with its file, line and note; contracts/tests/corpus.rs runs the same lines
// through the Rust validators.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import {
    isAgentEventType,
    isAgentRequestType,
    parseAgentEventPayload,
    parseAgentRequestPayload,
    parseAgentRequestResult,
    parseRequest,
    parseServerFrame,
    type ParseResult,
} from '@adecore/agent-contracts';

/** The package's root (this file runs from dist/test/). */
const PACKAGE = new URL('../../', import.meta.url);
/** The workspace's corpus directory. */
const CORPUS = new URL('../../tests/corpus/', PACKAGE);
const PROTOCOL = 'agent';

type Stage = 'envelope' | 'table';

/** One corpus line, as the README describes it. */
interface Line {
    where: string;
    as: string;
    type?: string;
    text: string;
    ok: boolean;
    stage?: Stage;
    paths?: string[];
    note: string;
}

/** What a validator says about a line; `paths` only where it names them. */
interface Verdict {
    ok: boolean;
    stage?: Stage;
    paths?: string[];
    message?: string;
}

function readCorpus(relative: string): Line[] {
    const url = new URL(relative, CORPUS);
    assert.ok(existsSync(url), `${relative} is missing (run cargo xtask codegen)`);
    const lines: Line[] = [];
    readFileSync(url, 'utf8')
        .split('\n')
        .forEach((raw, i) => {
            if (raw.trim() === '') return;
            const where = `tests/corpus/${relative}:${i + 1}`;
            const l = JSON.parse(raw) as Record<string, unknown>;
            const text = typeof l.raw === 'string' ? l.raw : JSON.stringify(l.input);
            assert.equal(typeof l.as, 'string', `${where}: no "as"`);
            assert.equal(typeof l.ok, 'boolean', `${where}: no "ok"`);
            lines.push({
                where,
                as: l.as as string,
                type: l.type as string | undefined,
                text,
                ok: l.ok as boolean,
                stage: l.stage as Stage | undefined,
                paths: l.paths as string[] | undefined,
                note: String(l.note ?? ''),
            });
        });
    return lines;
}

/** The paths a prettified message names, one per issue: `''` for an issue at the root. */
function pathsOf(message: string): string[] {
    const paths: string[] = [];
    for (const line of message.split('\n')) {
        if (line.startsWith('✖ ')) paths.push('');
        else if (line.startsWith('  → at ') && paths.length > 0) paths[paths.length - 1] = line.slice('  → at '.length);
    }
    return paths;
}

/** A set of paths, sorted, the root as `''`: what the line and a validator are compared on. */
function pathSet(paths: string[]): string[] {
    const set = new Set(paths.length === 0 ? [''] : paths);
    return [...set].sort();
}

function refusal(stage: Stage, r: ParseResult<unknown>): Verdict {
    const message = r.ok ? '' : r.message;
    return { ok: false, stage, paths: pathsOf(message), message };
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
    try {
        return { ok: true, value: JSON.parse(text) };
    } catch (e) {
        return { ok: false, message: e instanceof Error ? e.message : String(e) };
    }
}

/** The Zod verdict on a line. */
function zodVerdict(line: Line): Verdict {
    const json = parseJson(line.text);
    if (!json.ok) return { ok: false, stage: 'envelope', message: json.message };
    const input = json.value;
    const table = (r: ParseResult<unknown>): Verdict => (r.ok ? { ok: true } : refusal('table', r));
    switch (line.as) {
        case 'request': {
            const frame = parseRequest(input);
            if (!frame.ok) return refusal('envelope', frame);
            const name = frame.value.type;
            if (!isAgentRequestType(name)) return { ok: false, stage: 'table', message: `unknown request ${name}` };
            return table(parseAgentRequestPayload(name, frame.value.payload));
        }
        case 'server': {
            const frame = parseServerFrame(input);
            if (!frame.ok) return refusal('envelope', frame);
            const v = frame.value;
            if (!('event' in v) || v.type !== 'event') return { ok: true };
            if (!isAgentEventType(v.event)) return { ok: false, stage: 'table', message: `unknown event ${v.event}` };
            return table(parseAgentEventPayload(v.event, v.payload));
        }
        case 'payload':
        case 'result': {
            const name = line.type ?? '';
            assert.ok(isAgentRequestType(name), `${line.where}: unknown request type ${name}`);
            return table(line.as === 'payload' ? parseAgentRequestPayload(name, input) : parseAgentRequestResult(name, input));
        }
        case 'event': {
            const name = line.type ?? '';
            assert.ok(isAgentEventType(name), `${line.where}: unknown event type ${name}`);
            return table(parseAgentEventPayload(name, input));
        }
        default:
            throw new Error(`${line.where}: unknown "as": ${line.as}`);
    }
}

// The JSON Schema side.
const SCHEMA = JSON.parse(readFileSync(new URL('schema.json', PACKAGE), 'utf8')) as {
    $id: string;
    $defs: Record<string, unknown>;
};
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema(SCHEMA);
const compiled = new Map<string, ValidateFunction>();

/** The validator of one `$defs` entry. */
function def(name: string): ValidateFunction {
    let v = compiled.get(name);
    if (v === undefined) {
        assert.ok(name in SCHEMA.$defs, `schema.json has no $defs entry ${name}`);
        v = ajv.compile({ $ref: `${SCHEMA.$id}#/$defs/${encodeURIComponent(name)}` });
        compiled.set(name, v);
    }
    return v;
}

/** The JSON Schema verdict on a line. */
function schemaVerdict(line: Line): Verdict {
    const json = parseJson(line.text);
    if (!json.ok) return { ok: false, stage: 'envelope', message: json.message };
    const input = json.value;
    const check = (name: string, value: unknown, stage: Stage): Verdict => {
        const v = def(name);
        return v(value) ? { ok: true } : { ok: false, stage, message: ajv.errorsText(v.errors) };
    };
    switch (line.as) {
        case 'request': {
            const frame = check('Request', input, 'envelope');
            if (!frame.ok) return frame;
            const { type, payload } = input as { type: string; payload: unknown };
            const entry = `request:${type}:payload`;
            if (!Object.prototype.hasOwnProperty.call(SCHEMA.$defs, entry)) return { ok: false, stage: 'table' };
            return check(entry, payload, 'table');
        }
        case 'server': {
            const frame = check('ServerFrame', input, 'envelope');
            if (!frame.ok) return frame;
            // Tried in order, as the untagged union is: a reply first, then an event.
            if (def('ReplyOk')(input) || def('ReplyError')(input)) return { ok: true };
            const { event, payload } = input as { event: string; payload: unknown };
            const entry = `event:${event}`;
            if (!Object.prototype.hasOwnProperty.call(SCHEMA.$defs, entry)) return { ok: false, stage: 'table' };
            return check(entry, payload, 'table');
        }
        case 'payload':
        case 'result':
            return check(`request:${line.type}:${line.as}`, input, 'table');
        case 'event':
            return check(`event:${line.type}`, input, 'table');
        default:
            throw new Error(`${line.where}: unknown "as": ${line.as}`);
    }
}

/** What is wrong with `got` for `line`, or null when they agree. */
function disagreement(line: Line, got: Verdict, comparePaths: boolean): string | null {
    const wrong: string[] = [];
    if (got.ok !== line.ok) wrong.push(`ok ${got.ok}, expected ${line.ok}`);
    else if (!line.ok && line.stage !== undefined && got.stage !== line.stage) wrong.push(`stage ${got.stage}, expected ${line.stage}`);
    else if (!line.ok && comparePaths && line.paths !== undefined && got.paths !== undefined) {
        const want = pathSet(line.paths);
        const have = pathSet(got.paths);
        if (JSON.stringify(want) !== JSON.stringify(have)) wrong.push(`paths ${JSON.stringify(have)}, expected ${JSON.stringify(want)}`);
    }
    if (wrong.length === 0) return null;
    const message = got.message === undefined ? '' : `\n    message: ${got.message.replace(/\n/g, '\n             ')}`;
    return `${line.where} (${line.note}): ${wrong.join('; ')}${message}`;
}

function run(file: string, name: string, verdict: (l: Line) => Verdict, comparePaths: boolean) {
    test(`${name}: ${file}`, (t) => {
        const lines = readCorpus(file);
        assert.ok(lines.length > 0, `${file} is empty`);
        const wrong: string[] = [];
        for (const line of lines) {
            let got: Verdict;
            try {
                got = verdict(line);
            } catch (e) {
                if (e instanceof assert.AssertionError) throw e;
                got = { ok: false, message: `threw: ${e instanceof Error ? e.message : String(e)}` };
            }
            const d = disagreement(line, got, comparePaths);
            if (d !== null) wrong.push(d);
        }
        t.diagnostic(`${name}: ${file}: ${lines.length} lines, ${wrong.length} disagreements`);
        assert.equal(wrong.length, 0, `${wrong.length} of ${lines.length} lines disagree:\n${wrong.join('\n')}`);
    });
}

for (const file of [`${PROTOCOL}.jsonl`, `derived/${PROTOCOL}.jsonl`]) {
    run(file, 'zod', zodVerdict, true);
    run(file, 'json schema', schemaVerdict, false);
}
