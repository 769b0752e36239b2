// The examples of the template app's reference (docs/notes-examples.jsonl) through the app's
// Zod schemas and its JSON Schema, by this repository's shared corpus runner
// (tests/corpus/runner.mjs), as the agent's and the documents app's examples are run.
// `cargo xtask test-app` writes this file into the app's client, where the app's package and
// the agent package are installed from their tarballs, and runs it with `node --test`:
// CONTRACTS_CORPUS_DIR is a directory holding derived/notes.jsonl (the examples) and its
// messages record, RUNNER the runner's URL, AJV the URL of ajv's dist/2020.js.

import assert from 'node:assert/strict';
import { parseRequest, parseServerFrame } from '@adecore/agent-contracts';
import * as notes from '@acme/notes-contracts';

const { Ajv2020 } = await import(process.env.AJV);
const { appSchemaVerdict, refusal, runCorpus } = await import(process.env.RUNNER);

const SCHEMAS = new Map();
for (const [name, value] of Object.entries(notes)) {
    if (name.endsWith('Schema') && typeof value?.safeParse === 'function') SCHEMAS.set(name, value);
}

runCorpus({
    protocol: 'notes',
    files: ['derived/notes.jsonl'],
    packageUrl: new URL('./node_modules/@acme/notes-contracts/', import.meta.url),
    Ajv: Ajv2020,
    zod(line, input) {
        const table = (r) => (r.ok ? { ok: true } : refusal('table', r));
        switch (line.as) {
            case 'request': {
                const frame = parseRequest(input);
                if (!frame.ok) return refusal('envelope', frame);
                const name = frame.value.type;
                if (!notes.isNotesRequestType(name)) return { ok: false, stage: 'table', message: notes.noTableEntry(name) };
                return table(notes.parseNotesRequestPayload(name, frame.value.payload));
            }
            case 'server': {
                const frame = parseServerFrame(input);
                if (!frame.ok) return refusal('envelope', frame);
                const v = frame.value;
                if (!('event' in v) || v.type !== 'event') return { ok: true };
                if (!notes.isNotesEventType(v.event)) return { ok: false, stage: 'table', message: notes.noTableEntry(v.event) };
                return table(notes.parseNotesEventPayload(v.event, v.payload));
            }
            case 'payload':
            case 'result': {
                const name = line.type ?? '';
                assert.ok(notes.isNotesRequestType(name), `${line.where}: unknown request type ${name}`);
                return table(line.as === 'payload' ? notes.parseNotesRequestPayload(name, input) : notes.parseNotesRequestResult(name, input));
            }
            case 'event': {
                const name = line.type ?? '';
                assert.ok(notes.isNotesEventType(name), `${line.where}: unknown event type ${name}`);
                return table(notes.parseNotesEventPayload(name, input));
            }
            case 'type': {
                const schema = SCHEMAS.get(`${line.type}Schema`);
                assert.ok(schema, `${line.where}: the package exports no ${line.type}Schema`);
                return table(notes.parseWith(schema, input));
            }
            default:
                throw new Error(`${line.where}: unknown "as": ${line.as}`);
        }
    },
    schema: appSchemaVerdict,
});
