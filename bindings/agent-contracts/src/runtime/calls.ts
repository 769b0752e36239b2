// Typed calls and dispatch for a protocol whose tables have two sides (JSON-RPC's MCP and ACP):
// each generated package builds its callers and dispatchers on these, over its own tables.
// Hand-written; the refusals carry JSON-RPC's codes and the Rust dispatcher's messages, word
// for word (`HostError` generated for an integer-coded `#[error]`).

import type { z } from 'zod';
import { parseWith } from './parse.js';

/** How a request is sent: `signal` aborts it (the call rejects with the signal's reason). */
export interface RpcCallOptions {
    readonly signal?: AbortSignal;
}

/** What a handler is told beside its payload: `signal` aborts when the other side cancels the request or the connection closes. */
export interface RpcHandlerContext {
    readonly signal: AbortSignal;
}

/**
 * A connection to the other side: a request answers its raw result, a notification nothing.
 * A JSON-RPC connection implements it (`RpcConnection`).
 */
export interface RawCall {
    request(method: string, params: unknown, options?: RpcCallOptions): Promise<unknown>;
    notify(method: string, params: unknown): Promise<void>;
}

/**
 * JSON-RPC's codes: those a connection answers an unreadable message with (`RpcConnection`),
 * those a generated dispatcher refuses with, and the connection's own for a request past its
 * bounds (`overloaded`, in the range JSON-RPC leaves to implementations, as the Rust side's
 * `OVERLOADED`).
 */
export const RPC_CODES = { parseError: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, internalError: -32603, overloaded: -32000 } as const;

/** A failure: a JSON-RPC error's code and message. A handler may throw one to answer with it. */
export interface RpcFailure {
    code: number;
    message: string;
    data?: unknown;
}

/** What a dispatcher answers: the result, checked as the other side will read it, or a failure. */
export type DispatchAnswer = { ok: true; result: unknown } | { ok: false; error: RpcFailure };

/** A result the other side answered that its request's table refuses: the other side broke the contract. */
export class InvalidResultError extends Error {
    constructor(
        readonly method: string,
        readonly issues: string,
    ) {
        super(`the result of ${method} is not valid: ${issues}`);
        this.name = 'InvalidResultError';
    }
}

/** A request table: each name's payload and result schemas. */
export type CallTable = { readonly [name: string]: { readonly payload: z.ZodType; readonly result: z.ZodType } };

/** An event table: each name's payload schema. */
export type NotifyTable = { readonly [name: string]: z.ZodType };

/** The context of a handler called outside a connection: a signal that never aborts. */
const DETACHED: RpcHandlerContext = { signal: new AbortController().signal };

function has(table: object, name: string): boolean {
    return Object.prototype.hasOwnProperty.call(table, name);
}

/** A thrown failure: a number `code` and a string `message` (a `DOMException`, whose legacy `code` is no JSON-RPC code, is not one). */
function isFailure(e: unknown): e is RpcFailure {
    if (typeof e !== 'object' || e === null || e instanceof DOMException) return false;
    return typeof (e as RpcFailure).code === 'number' && typeof (e as RpcFailure).message === 'string';
}

/** Sends request `method` through `call` and reads its result by `table`; throws {@link InvalidResultError} when the table refuses it. */
export async function callTyped(table: CallTable, call: RawCall, method: string, payload: unknown, options?: RpcCallOptions): Promise<unknown> {
    const raw = await call.request(method, payload, options);
    const r = parseWith(table[method]!.result, raw);
    if (!r.ok) throw new InvalidResultError(method, r.message);
    return r.value;
}

/**
 * Answers request `method` with its handler: a name the table lacks or this side does not
 * receive (`receives`) is -32601 (`method not found: <name>`), params the table refuses -32602
 * (absent params read as `{}`), then a missing handler -32601 (`method not found: <name> is not
 * supported`), a result it refuses -32603 (never sent); a handler that throws an
 * {@link RpcFailure} answers with it, any other throw -32603 with its message. The handler is
 * called with its payload and `context` (a signal that never aborts when none is given).
 */
export async function dispatchTyped(
    table: CallTable,
    receives: (name: string) => boolean,
    handlers: { readonly [name: string]: ((payload: never, context: RpcHandlerContext) => Promise<unknown>) | undefined },
    method: string,
    params: unknown,
    context: RpcHandlerContext = DETACHED,
): Promise<DispatchAnswer> {
    if (!has(table, method) || !receives(method)) {
        return { ok: false, error: { code: RPC_CODES.methodNotFound, message: `method not found: ${method}` } };
    }
    // The params first, then the handler: the Rust dispatcher's order (its host's default
    // method answers "not supported" once the payload is read).
    const entry = table[method]!;
    const p = parseWith(entry.payload, params === undefined ? {} : params);
    if (!p.ok) return { ok: false, error: { code: RPC_CODES.invalidParams, message: p.message } };
    const handler = has(handlers, method) ? handlers[method] : undefined;
    if (handler === undefined) {
        return { ok: false, error: { code: RPC_CODES.methodNotFound, message: `method not found: ${method} is not supported` } };
    }
    let result: unknown;
    try {
        result = await handler(p.value as never, context);
    } catch (e) {
        if (isFailure(e)) return { ok: false, error: e };
        return { ok: false, error: { code: RPC_CODES.internalError, message: e instanceof Error ? e.message : String(e) } };
    }
    const r = parseWith(entry.result, result);
    if (!r.ok) {
        return {
            ok: false,
            error: { code: RPC_CODES.internalError, message: `the host's result of ${method} is not valid, so it was not sent: ${r.message}` },
        };
    }
    return { ok: true, result: r.value };
}

/**
 * Hears event `event` with its listener: its params read by the table (absent read as `{}`).
 * Answers whether a listener heard it; a refusal's message when the table refuses the params.
 */
export function notifyTyped(
    table: NotifyTable,
    receives: (name: string) => boolean,
    listeners: { readonly [name: string]: ((payload: never) => void) | undefined },
    event: string,
    params: unknown,
): { ok: true; heard: boolean } | { ok: false; message: string } {
    if (!has(table, event) || !receives(event)) return { ok: true, heard: false };
    const p = parseWith(table[event]!, params === undefined ? {} : params);
    if (!p.ok) return { ok: false, message: p.message };
    const listener = has(listeners, event) ? listeners[event] : undefined;
    if (listener === undefined) return { ok: true, heard: false };
    listener(p.value as never);
    return { ok: true, heard: true };
}
