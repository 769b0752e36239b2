// 64-bit integers (`int64`, `uint64`) as JavaScript reads them: `JSON.parse` gives a double,
// so the verdict is on that double (docs/wire-semantics.md), as the Rust runtime's `Int64` and
// `Uint64` judge it: integral, then `lo <= v < hi`. A value beyond 2^53 reaches JavaScript
// rounded; read it from the text where its exact digits matter. Hand-written, part of
// `@adecore/agent-contracts/runtime`.

import { z } from 'zod';

/** A number that is integral and in `lo <= v < hi`, each issue worded as the Rust side's. */
function whole(lo: number, hi: number, loText: string, hiText: string): z.ZodNumber {
    return z.number().check((payload) => {
        const v = payload.value;
        if (!Number.isInteger(v)) {
            // No `continue`: the bounds after it are not checked, as `z.int()`'s.
            payload.issues.push({ code: 'custom', message: 'Invalid input: expected int, received number', input: v });
        } else if (v < lo) {
            payload.issues.push({ code: 'custom', message: `Too small: expected int to be >=${loText}`, input: v, continue: true });
        } else if (v >= hi) {
            payload.issues.push({ code: 'custom', message: `Too big: expected int to be <${hiText}`, input: v, continue: true });
        }
    });
}

/** `int64`: `-2^63 <= v < 2^63`, judged on the double `JSON.parse` gives. */
export const wholeI64 = (): z.ZodNumber => whole(-(2 ** 63), 2 ** 63, '-9223372036854775808', '9223372036854775808');

/** `uint64`: `0 <= v < 2^64`, judged on the double `JSON.parse` gives. */
export const wholeU64 = (): z.ZodNumber => whole(0, 2 ** 64, '0', '18446744073709551616');
