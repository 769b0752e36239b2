// The shared corpus through the generated Zod schemas and the generated JSON Schema: the
// Agent Connect adapter of tests/corpus/runner.mjs (which says how lines are read, checked
// and compared).
//
// - Zod: `client` is parseClientFrame, `server` parseServerFrame; the stage is always
//   `envelope` (Agent Connect has no tables).
// - JSON Schema: schema.json's `$defs` `ClientFrame` and `ServerFrame`.

import { Ajv2020 } from 'ajv/dist/2020.js';
import { parseClientFrame, parseServerFrame, type ParseResult } from '@adecore/connect-frames';

/** The package's root (this file runs from dist/test/). */
const PACKAGE = new URL('../../', import.meta.url);
/** The shared runner, loaded at run time: it lives outside the package. */
const RUNNER = new URL('../../tests/corpus/runner.mjs', PACKAGE);
const { refusal, runCorpus } = (await import(RUNNER.href)) as typeof import('../../../tests/corpus/runner.mjs');

runCorpus({
    protocol: 'connect',
    packageUrl: PACKAGE,
    Ajv: Ajv2020,
    zod(line, input) {
        const frame = (r: ParseResult<unknown>) => (r.ok ? { ok: true } : refusal('envelope', r));
        switch (line.as) {
            case 'client':
                return frame(parseClientFrame(input));
            case 'server':
                return frame(parseServerFrame(input));
            default:
                throw new Error(`${line.where}: unknown "as": ${line.as}`);
        }
    },
    schema(line, input, defs) {
        switch (line.as) {
            // The named roots, as a client in another language starts from them.
            case 'client':
                return defs.root('ClientFrame', input, 'envelope');
            case 'server':
                return defs.root('ServerFrame', input, 'envelope');
            default:
                throw new Error(`${line.where}: unknown "as": ${line.as}`);
        }
    },
});
