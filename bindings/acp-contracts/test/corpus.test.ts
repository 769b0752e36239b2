// The derived corpus (tests/corpus/derived/acp.jsonl: every payload, result, notification and
// type at every edge the model has) through the generated Zod schemas and the generated JSON
// Schema: the ACP adapter of tests/corpus/runner.mjs, which compares each verdict, path and
// message with the line's and with Rust's recorded messages.
//
// - Zod: `payload`, `result` and `event` are the table's schema for `type`; `type` is the
//   package's `<type>Schema`.
// - JSON Schema: schema.json's `$defs` entry of the same name.

import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { isAcpEventType, isAcpRequestType, parseAcpEventPayload, parseAcpRequestPayload, parseAcpRequestResult, parseWith, type ParseResult } from '@adecore/acp-contracts';
import * as root from '@adecore/acp-contracts';
import type { z } from 'zod';
import type { Verdict } from '../../../tests/corpus/runner.mjs';

/** Every schema the package exports, by name. */
const SCHEMAS = new Map<string, z.ZodType>();
for (const [name, value] of Object.entries(root as Record<string, unknown>)) {
    if (name.endsWith('Schema') && typeof (value as { safeParse?: unknown }).safeParse === 'function') SCHEMAS.set(name, value as z.ZodType);
}

/** The package's root (this file runs from dist/test/). */
const PACKAGE = new URL('../../', import.meta.url);
/** The shared runner, loaded at run time: it lives outside the package. */
const RUNNER = new URL('../../tests/corpus/runner.mjs', PACKAGE);
const { refusal, runCorpus } = (await import(RUNNER.href)) as typeof import('../../../tests/corpus/runner.mjs');

runCorpus({
    protocol: 'acp',
    packageUrl: PACKAGE,
    Ajv: Ajv2020,
    files: ['derived/acp.jsonl'],
    zod(line, input) {
        const table = (r: ParseResult<unknown>): Verdict => (r.ok ? { ok: true } : refusal('table', r));
        switch (line.as) {
            case 'payload':
            case 'result': {
                const name = line.type ?? '';
                assert.ok(isAcpRequestType(name), `${line.where}: unknown request type ${name}`);
                return table(line.as === 'payload' ? parseAcpRequestPayload(name, input) : parseAcpRequestResult(name, input));
            }
            case 'event': {
                const name = line.type ?? '';
                assert.ok(isAcpEventType(name), `${line.where}: unknown event type ${name}`);
                return table(parseAcpEventPayload(name, input));
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
    schema(line, input, defs) {
        switch (line.as) {
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
    },
});
