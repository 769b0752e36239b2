// The runtime every generated package's parse functions run on (`@adecore/agent-contracts/runtime`):
// the answer of a parse, never a throw. Hand-written; shipped by this package only, imported by
// the others (docs/wire-semantics.md).

import { z } from 'zod';

/** What a parse function answers: the value, or Zod's prettified message. */
export type ParseResult<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * What a typed parse function answers: the value, or Zod's prettified message with the stage
 * that refused: the frame (`envelope`) or its payload by name (`table`).
 */
export type TypedParseResult<T> = { ok: true; value: T } | { ok: false; stage: 'envelope' | 'table'; message: string };

/**
 * The most issues a refusal names (docs/wire-semantics.md, "Failure messages"): the first
 * `MAX_ISSUES` of Zod's issues, in the order Zod found them, then one line with the count of the
 * rest. The Rust runtime's `wire::MAX_ISSUES` is the same number; a test checks it.
 */
export const MAX_ISSUES = 100;

/**
 * A refusal's message: `z.prettifyError`'s layout of the first {@link MAX_ISSUES} issues, then,
 * when there were more, `✖ and <n> more issues` (`issue` for one), as the Rust side writes it.
 */
export function refusalMessage(error: z.ZodError): string {
    const issues = error.issues;
    if (issues.length <= MAX_ISSUES) return z.prettifyError(error);
    const more = issues.length - MAX_ISSUES;
    const shown = z.prettifyError(new z.ZodError(issues.slice(0, MAX_ISSUES)));
    return `${shown}\n✖ and ${more} more issue${more === 1 ? '' : 's'}`;
}

/**
 * The refusal of a name no table entry has, worded as the Rust side words it: the name quoted
 * as JSON, a lone surrogate read as U+FFFD (as Rust reads the text).
 */
export function noTableEntry(name: string): string {
    return `no table entry is called ${quoteName(name)}`;
}

/** `name` quoted as JSON, a lone surrogate read as U+FFFD (see {@link noTableEntry}). */
export function quoteName(name: string): string {
    return JSON.stringify(name.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));
}

/**
 * Check `input` against `schema`, answering {@link ParseResult}; never throws (whatever
 * `input` is: a hostile getter or proxy answers a failure too).
 *
 * `pick`, for an untagged union, names the one variant that can be the first to accept `input`
 * (by the literal keys of the variants); when that variant accepts, its value is the union's,
 * and the union runs only when it does not, or throws (for its verdict and message). On data
 * (any `JSON.parse` value) the answer is the union's; an accessor that throws on a key only an
 * earlier variant reads is not reached.
 *
 * Runs `z.safeParse(schema, input)`, not the method: Zod binds a method onto the schema the
 * first time it is read, which gives the schema a hidden class of its own.
 */
export function parseWith<S extends z.ZodType>(
    schema: S,
    input: unknown,
    pick?: (input: unknown) => z.ZodType | undefined,
): ParseResult<z.output<S>> {
    try {
        const first = pick?.(input);
        if (first !== undefined) {
            const r = z.safeParse(first, input);
            if (r.success) return { ok: true, value: r.data as z.output<S> };
        }
    } catch {
        // A hostile input: the union answers it.
    }
    try {
        const r = z.safeParse(schema, input);
        return r.success ? { ok: true, value: r.data } : { ok: false, message: refusalMessage(r.error) };
    } catch (e) {
        return { ok: false, message: e instanceof Error ? e.message : String(e) };
    }
}
