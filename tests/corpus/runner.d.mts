// The types of runner.mjs, the corpus runner of the TypeScript packages.

/** Where a refusal happens: the frame, or the payload by name through a table. */
export type Stage = 'envelope' | 'table';

/** One corpus line, as the README describes it. */
export interface Line {
    /** The line's number in its file (from 1). */
    number: number;
    /** The line as written. */
    source: string;
    /** `tests/corpus/<file>:<line>`, for messages. */
    where: string;
    as: string;
    type?: string;
    /** The line's `raw` text, or its `input` as JSON. */
    text: string;
    ok: boolean;
    stage?: Stage;
    paths?: string[];
    note: string;
}

/** What a validator says about a line; `paths` only where it names them. */
export interface Verdict {
    ok: boolean;
    stage?: Stage;
    paths?: string[];
    message?: string;
}

/** A package's `ParseResult`, as far as the runner reads it. */
export type ParseResult = { ok: true } | { ok: false; message: string };

/** One ajv validator, as far as the runner uses it. */
export interface AjvValidate {
    (data: unknown): boolean;
    errors?: unknown;
}

/** An ajv instance, as far as the runner uses it. */
export interface AjvLike {
    addSchema(schema: object): unknown;
    compile(schema: object): AjvValidate;
    errorsText(errors: unknown): string;
}

/** The `$defs` of the package's schema.json, through ajv. */
export interface SchemaChecks {
    /** `$defs[name]` on `value`: ok, or a refusal at `stage` with ajv's message. */
    check(name: string, value: unknown, stage: Stage): Verdict;
    /** The named root `#name` (`$anchor`, a whole frame with its payload) on `value`. */
    root(name: string, value: unknown, stage: Stage): Verdict;
    /** Whether `$defs` has an entry `name` of its own. */
    has(name: string): boolean;
    /** Whether `value` passes `$defs[name]`. */
    valid(name: string, value: unknown): boolean;
}

/** What a package tells the runner about its protocol. */
export interface Protocol {
    /** The corpus files' stem: `<protocol>.jsonl` and `derived/<protocol>.jsonl`. */
    protocol: string;
    /** The package's root, where schema.json is. */
    packageUrl: URL;
    /** ajv's `Ajv2020`, from the package's own dependencies. */
    Ajv: new (options: { strict: boolean; allErrors: boolean }) => AjvLike;
    /** The Zod verdict on a line whose text is JSON (`input`). */
    zod(line: Line, input: unknown): Verdict;
    /** The JSON Schema verdict on a line whose text is JSON (`input`). */
    schema(line: Line, input: unknown, defs: SchemaChecks): Verdict;
    /** The corpus files to run, relative to tests/corpus/ (default: the protocol's two). */
    files?: string[];
}

/** A Zod refusal at `stage`, with the paths its prettified message names. */
export function refusal(stage: Stage, r: ParseResult): Verdict;

/** The JSON Schema verdict of an app that extends the agent (its schema.json's two stages). */
export function appSchemaVerdict(line: Line, input: unknown, defs: SchemaChecks): Verdict;

/**
 * Registers the corpus tests of one protocol (node:test): Zod (paths compared) and JSON
 * Schema, over the hand-written and the derived corpus; each test fails listing every line
 * that disagrees.
 */
export function runCorpus(protocol: Protocol): void;
