// The shared corpus through the generated Zod schemas and the generated JSON Schema: the
// agent adapter of tests/corpus/runner.mjs (which says how lines are read, checked and
// compared).
//
// - Zod: `request` is parseRequest, then the payload by name through the table (a name the
//   table does not know is a table-stage refusal); `server` is parseServerFrame, then an
//   event's payload by name; `payload`, `result` and `event` are the table's schema for
//   `type`; `type` (a type no table entry reaches) is the package's `<type>Schema`, from the
//   root or the module subpath it lives in (`./task`, `./agent`).
// - JSON Schema: schema.json's `$defs`, the same two stages: the envelope's `$defs` entry,
//   then the named root (`#Request`, `#ServerFrame`), which checks the payload by name.

import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import {
    isAgentEventType,
    isAgentRequestType,
    parseAgentEventPayload,
    parseAgentRequestPayload,
    parseAgentRequestResult,
    parseRequest,
    parseServerFrame,
    parseWith,
    noTableEntry,
    type ParseResult,
} from '@adecore/agent-contracts';
import * as root from '@adecore/agent-contracts';
import * as agentModule from '@adecore/agent-contracts/agent';
import * as taskModule from '@adecore/agent-contracts/task';
import type { z } from 'zod';
import type { Verdict } from '../../../tests/corpus/runner.mjs';

/** Every schema the package exports, by name: the root's and the module subpaths'. */
const SCHEMAS = new Map<string, z.ZodType>();
for (const m of [root, agentModule, taskModule] as Record<string, unknown>[]) {
    for (const [name, value] of Object.entries(m)) {
        if (name.endsWith('Schema') && typeof (value as { safeParse?: unknown }).safeParse === 'function') SCHEMAS.set(name, value as z.ZodType);
    }
}


/** The package's root (this file runs from dist/test/). */
const PACKAGE = new URL('../../', import.meta.url);
/** The shared runner, loaded at run time: it lives outside the package. */
const RUNNER = new URL('../../tests/corpus/runner.mjs', PACKAGE);
const { refusal, runCorpus } = (await import(RUNNER.href)) as typeof import('../../../tests/corpus/runner.mjs');

runCorpus({
    protocol: 'agent',
    packageUrl: PACKAGE,
    Ajv: Ajv2020,
    zod(line, input) {
        const table = (r: ParseResult<unknown>): Verdict => (r.ok ? { ok: true } : refusal('table', r));
        switch (line.as) {
            case 'request': {
                const frame = parseRequest(input);
                if (!frame.ok) return refusal('envelope', frame);
                const name = frame.value.type;
                if (!isAgentRequestType(name)) return { ok: false, stage: 'table', message: noTableEntry(name) };
                return table(parseAgentRequestPayload(name, frame.value.payload));
            }
            case 'server': {
                const frame = parseServerFrame(input);
                if (!frame.ok) return refusal('envelope', frame);
                const v = frame.value;
                if (!('event' in v) || v.type !== 'event') return { ok: true };
                if (!isAgentEventType(v.event)) return { ok: false, stage: 'table', message: noTableEntry(v.event) };
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
            // The envelope alone, then the named root, which checks the frame whole: the
            // payload of the entry its name picks (schema.json#Request, #ServerFrame).
            case 'request': {
                const frame = defs.check('Request', input, 'envelope');
                if (!frame.ok) return frame;
                return defs.root('Request', input, 'table');
            }
            case 'server': {
                const frame = defs.check('ServerFrame', input, 'envelope');
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
    },
});
