// The app's corpus (tests/corpus/documents.jsonl, hand-written and the fuzzer's regression
// lines) and the examples of its reference (tests/corpus/derived/documents.jsonl, written by
// `cargo xtask codegen`) through the generated Zod schemas and the generated JSON Schema: the
// app's adapter of tests/corpus/runner.mjs, the runner the agent's corpus runs through (which
// says how lines are read, checked and compared). examples/documents-app/tests/corpus.rs runs
// the same lines through the Rust verdict over the app's tables. The fuzzer's differential run
// (`cargo xtask fuzz --differential`) runs generated lines through it too.
//
// - Zod: `request` is the agent's parseRequest, then the payload by name through the app's
//   table (the agent's names and the app's); `server` is parseServerFrame, then an event's
//   payload by name; `payload`, `result` and `event` are the app's table's schema for `type`;
//   `type` is the package's `<type>Schema`.
// - JSON Schema: schema.json's `$defs`, the same two stages: the envelope's `$defs` entry
//   (the agent's, `agent.Request`), then the named root (`#Request`, `#ServerFrame`), which
//   checks the payload by name in the app's tables.

import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parseRequest, parseServerFrame } from '@adecore/agent-contracts';
import {
    isDocumentsEventType,
    isDocumentsRequestType,
    noTableEntry,
    parseDocumentsEventPayload,
    parseDocumentsRequestPayload,
    parseDocumentsRequestResult,
    parseWith,
    type ParseResult,
} from '@adecore/documents-contracts';
import * as root from '@adecore/documents-contracts';
import type { z } from 'zod';
import type { Verdict } from '../../../../../tests/corpus/runner.mjs';

/** Every schema the package exports, by name. */
const SCHEMAS = new Map<string, z.ZodType>();
for (const [name, value] of Object.entries(root as Record<string, unknown>)) {
    if (name.endsWith('Schema') && typeof (value as { safeParse?: unknown }).safeParse === 'function') SCHEMAS.set(name, value as z.ZodType);
}

/** The package's root (this file runs from dist/test/). */
const PACKAGE = new URL('../../', import.meta.url);
/** The shared runner, loaded at run time: it lives outside the package. */
const RUNNER = new URL('../../../../tests/corpus/runner.mjs', PACKAGE);
const { appSchemaVerdict, refusal, runCorpus } = (await import(RUNNER.href)) as typeof import('../../../../../tests/corpus/runner.mjs');

runCorpus({
    protocol: 'documents',
    files: ['documents.jsonl', 'derived/documents.jsonl'],
    packageUrl: PACKAGE,
    Ajv: Ajv2020,
    zod(line, input) {
        const table = (r: ParseResult<unknown>): Verdict => (r.ok ? { ok: true } : refusal('table', r));
        switch (line.as) {
            case 'request': {
                const frame = parseRequest(input);
                if (!frame.ok) return refusal('envelope', frame);
                const name = frame.value.type;
                if (!isDocumentsRequestType(name)) return { ok: false, stage: 'table', message: noTableEntry(name) };
                return table(parseDocumentsRequestPayload(name, frame.value.payload));
            }
            case 'server': {
                const frame = parseServerFrame(input);
                if (!frame.ok) return refusal('envelope', frame);
                const v = frame.value;
                if (!('event' in v) || v.type !== 'event') return { ok: true };
                if (!isDocumentsEventType(v.event)) return { ok: false, stage: 'table', message: noTableEntry(v.event) };
                return table(parseDocumentsEventPayload(v.event, v.payload));
            }
            case 'payload':
            case 'result': {
                const name = line.type ?? '';
                assert.ok(isDocumentsRequestType(name), `${line.where}: unknown request type ${name}`);
                return table(line.as === 'payload' ? parseDocumentsRequestPayload(name, input) : parseDocumentsRequestResult(name, input));
            }
            case 'event': {
                const name = line.type ?? '';
                assert.ok(isDocumentsEventType(name), `${line.where}: unknown event type ${name}`);
                return table(parseDocumentsEventPayload(name, input));
            }
            case 'type': {
                const schema = SCHEMAS.get(`${line.type}Schema`);
                assert.ok(schema, `${line.where}: the package exports no ${line.type}Schema`);
                return table(parseWith(schema, input));
            }
            default:
                throw new Error(`${line.where}: unknown "as": ${line.as}`);
        }
    },
    schema: appSchemaVerdict,
});
