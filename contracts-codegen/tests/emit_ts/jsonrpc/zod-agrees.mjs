// Zod's verdicts on the JSON-RPC lines Rust judged (`contracts/tests/jsonrpc.verdicts.jsonl`,
// written by `contracts/tests/jsonrpc.rs`): `parseJSONRPCRequestTyped` on the requests,
// `parseJSONRPCMessageTyped` on every line, the open frames' parse functions on theirs (`as`),
// the same verdict, stage and message.
//
// Run against a build of this directory's `src/` (the fixture package `pass-jsonrpc`):
//   node zod-agrees.mjs <dir of the compiled frames.js> <verdicts.jsonl>
// (compiled with `tsc` beside a `node_modules` holding `zod` and `@adecore/agent-contracts`).
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { join, resolve } from 'node:path';

const [dir, verdicts] = process.argv.slice(2);
const frames = await import(pathToFileURL(join(resolve(dir), 'frames.js')).href);
let failures = 0;
const lines = readFileSync(verdicts, 'utf8').split('\n').filter((l) => l.trim() !== '');
for (const line of lines) {
    const want = JSON.parse(line);
    let input;
    try {
        input = JSON.parse(want.raw);
    } catch {
        if (want.ok || want.stage !== 'envelope') {
            console.log(`not JSON, but Rust said ${line}`);
            failures++;
        }
        continue;
    }
    const parse = {
        request: frames.parseJSONRPCRequestTyped,
        message: frames.parseJSONRPCMessageTyped,
        'open-request': frames.parseOpenRequestTyped,
        'labelled-request': frames.parseLabelledRequestTyped,
        'open-message': frames.parseOpenMessageTyped,
    }[want.as];
    const got = parse(input);
    const same =
        got.ok === want.ok &&
        (got.ok || (got.stage === want.stage && (want.message == null || got.message === want.message)));
    if (!same) {
        failures++;
        console.log(`disagree on ${want.as} ${want.raw}\n  rust: ${JSON.stringify(want)}\n  zod:  ${JSON.stringify(got)}`);
    }
}
console.log(`${lines.length} lines, ${failures} disagreements`);
process.exit(failures === 0 ? 0 : 1);
