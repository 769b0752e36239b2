// The official examples (tests/corpus/acp/examples.jsonl: whole ACP v1 messages of
// both sides, each valid per the official JSON Schema) through the generated Zod schemas and
// the generated JSON Schema: every message is accepted by `parseJsonRpcMessageTyped` (its
// params by its method) and by schema.json's `JsonRpcMessage`, and Zod's value is the message
// (no key dropped; absent params are read as `{}`, the typed form's reading).
// contracts/tests/json_rpc_protocols.rs runs the same lines through Rust.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parseJsonRpcMessageTyped } from '@adecore/acp-contracts';

/** The package's root (this file runs from dist/test/). */
const PACKAGE = new URL('../../', import.meta.url);
const EXAMPLES = new URL('../../tests/corpus/acp/examples.jsonl', PACKAGE);

const lines = readFileSync(EXAMPLES, 'utf8')
    .split('\n')
    .map((text, i) => ({ text, where: `tests/corpus/acp/examples.jsonl:${i + 1}` }))
    .filter((l) => l.text.trim() !== '')
    .map((l) => ({ ...l, example: JSON.parse(l.text) as { message: unknown; def: string } }));

/** The typed value without the `params: {}` the typed form reads when the message has none. */
function asSent(value: unknown, message: unknown): unknown {
    const sent = message as Record<string, unknown>;
    const v = value as Record<string, unknown>;
    if ('params' in sent || !('params' in v) || JSON.stringify(v.params) !== '{}') return value;
    const { params: _, ...rest } = v;
    return rest;
}

test('every official example is accepted by Zod and written back as read', () => {
    assert.ok(lines.length > 0);
    const wrong: string[] = [];
    for (const { where, example } of lines) {
        const r = parseJsonRpcMessageTyped(example.message);
        if (!r.ok) wrong.push(`${where} (${example.def}): refused at ${r.stage}: ${r.message}`);
        else if (JSON.stringify(asSent(r.value, example.message)) !== JSON.stringify(example.message)) {
            try {
                assert.deepStrictEqual(asSent(r.value, example.message), example.message);
            } catch (e) {
                wrong.push(`${where} (${example.def}): written back otherwise: ${(e as Error).message}`);
            }
        }
    }
    assert.equal(wrong.length, 0, wrong.join('\n'));
});

test('every official example is accepted by the generated JSON Schema', () => {
    const schema = JSON.parse(readFileSync(new URL('schema.json', PACKAGE), 'utf8'));
    const ajv = new Ajv2020({ strict: false, allErrors: true, formats: { uri: true } });
    ajv.addSchema(schema);
    const message = ajv.compile({ $ref: `${schema.$id}#/$defs/JsonRpcMessage` });
    const wrong = lines
        .filter(({ example }) => !message(example.message))
        .map(({ where, example }) => `${where} (${example.def}): ${ajv.errorsText(message.errors)}`);
    assert.equal(wrong.length, 0, wrong.join('\n'));
});
