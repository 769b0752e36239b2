// One incoming JSON-RPC 2.0 frame read: a request, a notification or a response, or the refusal
// a connection answers it with (-32700, -32600). The checks, their order and their words are the
// Rust connection's (`contracts/src/rpc/message.rs`), so both sides refuse the same frames the
// same way: `tests/rpc-parity/` holds the frames both are run on, and what both must answer.
// Hand-written, part of `@adecore/agent-contracts/runtime`.
//
// The envelope is protocol-neutral on purpose: a request's `params` go to the side's dispatcher,
// whose table judges them (-32602), as the Rust side's generated dispatcher does.

/** A request id as this connection reads it: a string, or an integer within JavaScript's safe range. */
export type RpcId = string | number;

/** What a connection answers text that is not JSON (the parsers' own words differ between languages). */
export const NOT_JSON = 'parse error: the message is not JSON text';

/** JSON-RPC's codes for a frame refused before it reaches a dispatcher. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/** One frame, read. `value` is the parsed JSON, for reports. */
export type ReadMessage =
    | { readonly kind: 'request'; readonly id: RpcId; readonly method: string; readonly params: unknown; readonly value: object }
    | { readonly kind: 'notification'; readonly method: string; readonly params: unknown; readonly value: object }
    | { readonly kind: 'response'; readonly value: { readonly [key: string]: unknown } }
    /** Refused: answered with `code` and `message`, and `id` when it could be read. */
    | { readonly kind: 'refused'; readonly id: RpcId | undefined; readonly code: number; readonly message: string };

function refused(id: RpcId | undefined, code: number, message: string): ReadMessage {
    return { kind: 'refused', id, code, message };
}

/**
 * Reads one frame's text. The checks run in this order, as the Rust reader runs them: JSON, a
 * batch, an object; then, for a message with a `method`: `jsonrpc`, no `result` or `error`,
 * `method` a string, `params` an object or an array, the id. A message without a `method` is a
 * response when it has a `result` or an `error` (read further by the caller), else refused.
 */
export function readMessage(text: string): ReadMessage {
    let value: unknown;
    try {
        value = JSON.parse(text);
    } catch {
        return refused(undefined, PARSE_ERROR, NOT_JSON);
    }
    if (Array.isArray(value)) {
        return refused(undefined, INVALID_REQUEST, 'invalid request: a batch (a JSON array of messages) is not supported; send each message on its own');
    }
    if (typeof value !== 'object' || value === null) return refused(undefined, INVALID_REQUEST, 'invalid request: a message is a JSON object');
    const o = value as { readonly [key: string]: unknown };
    const has = (key: string) => Object.hasOwn(o, key);
    // The id, if it can be read: a refusal of the request names it.
    const id = has('id') ? readId(o.id) : undefined;
    const readableId = id?.ok ? id.id : undefined;
    const versionOk = o.jsonrpc === '2.0';
    if (!has('method')) {
        if (!has('result') && !has('error')) {
            return refused(
                readableId,
                INVALID_REQUEST,
                'invalid request: a message has a "method" (a request or a notification) or a "result" or "error" (a response)',
            );
        }
        return { kind: 'response', value: o };
    }
    if (!versionOk) return refused(readableId, INVALID_REQUEST, 'invalid request: "jsonrpc" must be "2.0"');
    if (has('result') || has('error')) return refused(readableId, INVALID_REQUEST, 'invalid request: a request has no "result" or "error"');
    if (typeof o.method !== 'string') return refused(readableId, INVALID_REQUEST, 'invalid request: "method" must be a string');
    const params = o.params;
    if (has('params') && (typeof params !== 'object' || params === null)) {
        return refused(readableId, INVALID_REQUEST, 'invalid request: "params" must be an object or an array');
    }
    if (id === undefined) return { kind: 'notification', method: o.method, params, value: o };
    if (!id.ok) return refused(undefined, INVALID_REQUEST, `invalid request: a request's "id" is a string or an integer, not ${id.not}`);
    return { kind: 'request', id: id.id, method: o.method, params, value: o };
}

/** A request id: a string, or an integer within the safe range (`1.0` reads as 1); otherwise what it is instead. */
function readId(id: unknown): { ok: true; id: RpcId } | { ok: false; not: string } {
    if (typeof id === 'string') return { ok: true, id };
    if (id === null) return { ok: false, not: 'null' };
    if (typeof id === 'boolean') return { ok: false, not: 'a boolean' };
    if (Array.isArray(id)) return { ok: false, not: 'an array' };
    if (typeof id === 'object') return { ok: false, not: 'an object' };
    const n = id as number;
    if (Math.abs(n) > Number.MAX_SAFE_INTEGER) return { ok: false, not: "an integer beyond 2^53 - 1 (JavaScript's safe integers)" };
    if (!Number.isInteger(n)) return { ok: false, not: 'a fraction' };
    return { ok: true, id: n === 0 ? 0 : n };
}
