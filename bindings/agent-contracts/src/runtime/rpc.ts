// A JSON-RPC 2.0 connection over a port of JSON texts: it calls the other side (a `RawCall`:
// ids, the pending requests, each answer matched to its request) and serves this side through a
// generated package's dispatch and notify functions. What a generated `connect<Side>` (MCP's,
// ACP's) is built on. Hand-written, part of `@adecore/agent-contracts/runtime`.
//
// Verdicts, each answered as JSON-RPC 2.0 says, with the codes and the words of the Rust
// connection (`contracts::rpc`); `tests/rpc-parity/` runs both on the same frames:
// - a frame `readMessage` refuses (`message.ts`: not JSON -32700; a batch, not an object, a bad
//   `jsonrpc`, `method`, `params` or id -32600); a frame over the port's size limit: -32600
//   with `FrameTooLarge`'s message; a request whose id is already being served (or waiting):
//   -32600, without the id;
// - a request: the dispatcher's answer (its result, or -32601, -32602, -32603 as the generated
//   dispatcher refuses, words of `calls.ts`); `maxInFlight` served at once, `maxWaiting` more
//   waiting, and past them -32000 (`overloaded: ...`) at once;
// - a notification: heard by the listeners at once, never answered (a refused one is reported);
// - a response: read by the protocol's message schema, then settles the request of its id; one
//   for no request in flight is reported.
// An answer to a message whose id cannot be read carries `"id": null` when the protocol's
// message schema admits it (JSON-RPC 2.0, ACP), and no id otherwise (MCP 2025-11-25, whose
// error response has an optional id that is never null); the Rust side's `Options::mcp()`
// chooses the same.

import type { z } from 'zod';
import { parseWith } from './parse.js';
import { type DispatchAnswer, InvalidResultError, type RawCall, type RpcCallOptions, type RpcFailure, type RpcHandlerContext, RPC_CODES } from './calls.js';
import { FrameTooLarge } from './ndjson.js';
import { readMessage, type RpcId } from './message.js';

/**
 * The port a connection runs over: the agent package's `FramePort` of JSON texts (a
 * `FramePort<string>`: `createPortPair<string>()`, a WebSocket's or a MessagePort's text
 * messages, {@link ndjsonPort} over stdio). `closed`, when the port has it, settles when the
 * other end is gone: the connection then closes.
 */
export interface RpcPort {
    send(frame: string): void;
    onFrame(listener: (frame: unknown) => void): () => void;
    readonly closed?: Promise<unknown>;
}

/** The other side answered a request with a JSON-RPC error: its code, message and data. */
export class RpcError extends Error implements RpcFailure {
    readonly code: number;
    readonly data?: unknown;
    constructor(error: RpcFailure) {
        super(error.message);
        this.name = 'RpcError';
        this.code = error.code;
        if (error.data !== undefined) this.data = error.data;
    }
}

/** The connection closed (by `close`, or its port's end) before the request was answered, or was closed when it was sent. */
export class ConnectionClosedError extends Error {
    constructor(reason = 'the connection is closed') {
        super(reason);
        this.name = 'ConnectionClosedError';
    }
}

/** What serves this side: a generated package's dispatch and notify functions for it. */
export interface RpcSide {
    /** Answers a request (`dispatch<Protocol><Side>`). */
    dispatch(method: string, params: unknown, context: RpcHandlerContext): Promise<DispatchAnswer>;
    /** Hears a notification (`notify<Protocol><Side>`): a refusal's message when its params are refused. */
    notify(event: string, params: unknown): { ok: true; heard: boolean } | { ok: false; message: string };
}

/** The package's JSON-RPC envelope: its message union. */
export interface RpcEnvelope {
    /**
     * Every message either side sends (`JSONRPCMessageSchema`): what each response is read by,
     * and whether an error response may have `"id": null` (else an unreadable message is
     * answered with no id).
     */
    readonly message: z.ZodType;
}

/** The notification that cancels a request, sent and heard: its params carry `requestId`. */
export interface RpcCancel {
    /** Its method: MCP's `notifications/cancelled`, ACP's `$/cancel_request`. */
    readonly method: string;
    /**
     * Whether the protocol answers a cancelled request, and how: ACP answers every request
     * (-32800), MCP none. With it, a request the other side cancelled is answered with what its
     * handler gives, this failure instead of an internal error (a throw that is not an
     * `RpcFailure`, such as the signal's reason); and a call this side cancels waits for the
     * other side's answer (a result or an error). Without it, nothing is sent for a cancelled
     * request, and a cancelled call rejects at once with its signal's reason.
     */
    readonly answer?: RpcFailure;
}

/** Requests of the other side served at once by default (as the Rust connection's `DEFAULT_MAX_IN_FLIGHT`). */
export const DEFAULT_MAX_IN_FLIGHT = 64;
/** Requests waiting to be served by default (as the Rust connection's `DEFAULT_MAX_WAITING`). */
export const DEFAULT_MAX_WAITING = 256;

/** Options of a connection. */
export interface RpcOptions {
    /** The most requests of the other side served at once (at least 1; {@link DEFAULT_MAX_IN_FLIGHT}). One more waits until one of them is answered. */
    readonly maxInFlight?: number;
    /**
     * The most requests waiting for a place among those served (at least 1;
     * {@link DEFAULT_MAX_WAITING}). Past it a request is answered at once with -32000
     * (`overloaded: ...`), never buffered. Notifications are heard as they come: none waits.
     */
    readonly maxWaiting?: number;
    /** The notification that cancels a request; without it, a caller's abort sends nothing, and no notification aborts a handler. */
    readonly cancel?: RpcCancel;
    /** Told about every incoming message no answer can be sent for and that was not used: a notification its table refuses, a response to no request in flight, one the envelope refuses. */
    readonly onInvalidFrame?: (message: string, frame: unknown) => void;
    /**
     * Told about every throw of a listener, with the event's name. Without it, the throw is
     * thrown again in a microtask (`queueMicrotask`), where it is an uncaught exception.
     */
    readonly onListenerError?: (error: unknown, event: string) => void;
}

/** A request id as JSON-RPC reads it (`null` only in a response, to an unreadable message). */
type Id = RpcId | null;

/** A request of the other side's taken: served, or waiting for a place. */
type Served = { controller: AbortController; cancelled: boolean; waiting: boolean };

/** A request waiting for a place among those served. */
type Waiting = { id: RpcId; method: string; params: unknown; entry: Served };

type Pending = { method: string; resolve: (value: unknown) => void; reject: (error: unknown) => void; unlisten: () => void };

/** The most ids of requests this side cancelled whose late answers are dropped without a report. */
const CANCELLED_REMEMBERED = 1024;

/**
 * A JSON-RPC 2.0 connection over `port`: requests and notifications both ways, at once. Its
 * `request` and `notify` are the other side's (a {@link RawCall}, what a generated package's
 * `create<Protocol><Side>Calls` types); the requests and notifications it receives go to `side`.
 */
export class RpcConnection implements RawCall {
    /** Settles once the connection has closed: by {@link close}, or its port's end. */
    readonly closed: Promise<void>;
    private readonly pending = new Map<number, Pending>();
    private readonly serving = new Map<RpcId, Served>();
    private readonly waiting: Waiting[] = [];
    private readonly maxInFlight: number;
    private readonly maxWaiting: number;
    private inFlight = 0;
    private readonly cancelled = new Set<number>();
    private readonly stop: () => void;
    private readonly nullId: boolean;
    private settle!: () => void;
    private next = 1;
    private isClosed = false;

    constructor(
        private readonly port: RpcPort,
        private readonly side: RpcSide,
        private readonly envelope: RpcEnvelope,
        private readonly options: RpcOptions = {},
    ) {
        this.closed = new Promise((resolve) => (this.settle = resolve));
        this.maxInFlight = atLeastOne(options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT);
        this.maxWaiting = atLeastOne(options.maxWaiting ?? DEFAULT_MAX_WAITING);
        // Whether the protocol answers an unreadable message with `"id": null`, or with no id.
        this.nullId = parseWith(envelope.message, { jsonrpc: '2.0', id: null, error: { code: RPC_CODES.parseError, message: '' } }).ok;
        this.stop = port.onFrame((frame) => this.receive(frame));
        port.closed?.then(
            () => this.close('the port closed'),
            () => this.close('the port closed'),
        );
    }

    /**
     * Sends request `method` and answers its result; rejects with {@link RpcError} when the
     * other side answers an error, {@link ConnectionClosedError} when the connection closes
     * first, or what the port's `send` threw. When `options.signal` aborts, the cancel
     * notification is sent (if the connection has one) and the call rejects with the signal's
     * reason, or, where the protocol answers a cancelled request ({@link RpcCancel.answer}),
     * settles with that answer.
     */
    request(method: string, params: unknown, options: RpcCallOptions = {}): Promise<unknown> {
        if (this.isClosed) return Promise.reject(new ConnectionClosedError());
        const signal = options.signal;
        if (signal?.aborted) return Promise.reject(signal.reason);
        const id = this.next++;
        return new Promise((resolve, reject) => {
            const onAbort = () => this.abandon(id, signal!.reason);
            signal?.addEventListener('abort', onAbort, { once: true });
            const unlisten = () => signal?.removeEventListener('abort', onAbort);
            this.pending.set(id, { method, resolve, reject, unlisten });
            try {
                this.port.send(JSON.stringify(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params }));
            } catch (e) {
                this.pending.delete(id);
                unlisten();
                reject(e);
            }
        });
    }

    /** Sends notification `method`; rejects when the connection is closed or the port's `send` throws. */
    async notify(method: string, params: unknown): Promise<void> {
        if (this.isClosed) throw new ConnectionClosedError();
        this.port.send(JSON.stringify(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params }));
    }

    /**
     * Closes the connection: the requests waiting for an answer reject with
     * {@link ConnectionClosedError}, the handlers still running are aborted (their answers are
     * not sent), and the port is no longer listened to. The port itself stays open.
     */
    close(reason = 'the connection is closed'): void {
        if (this.isClosed) return;
        this.isClosed = true;
        this.stop();
        const error = new ConnectionClosedError(reason);
        for (const [id, p] of this.pending) {
            this.pending.delete(id);
            p.unlisten();
            p.reject(error);
        }
        for (const s of this.serving.values()) s.controller.abort(error);
        this.serving.clear();
        this.waiting.length = 0;
        this.settle();
    }

    /**
     * A request of this side's whose caller aborted: cancelled at the other side (when the
     * connection has a cancel notification). Where the protocol answers a cancelled request
     * (`cancel.answer`: ACP), the call waits for that answer, as ACP's SDK does; otherwise it
     * rejects at once with the signal's reason, and a late answer is dropped unreported.
     */
    private abandon(id: number, reason: unknown): void {
        const p = this.pending.get(id);
        if (p === undefined) return;
        const cancel = this.options.cancel;
        const waits = cancel?.answer !== undefined;
        if (cancel !== undefined && !this.isClosed) {
            const params = typeof reason === 'string' ? { requestId: id, reason } : { requestId: id };
            try {
                this.port.send(JSON.stringify({ jsonrpc: '2.0', method: cancel.method, params }));
            } catch (e) {
                this.invalid(`the cancellation of ${p.method} (id ${id}) could not be sent: ${messageOf(e)}`, params);
                if (waits) this.forget(id, p, reason);
                return;
            }
        }
        if (!waits) this.forget(id, p, reason);
    }

    /** A request no longer waited for: rejected with `reason`; its late answer dropped unreported. */
    private forget(id: number, p: Pending, reason: unknown): void {
        this.pending.delete(id);
        p.unlisten();
        this.cancelled.add(id);
        if (this.cancelled.size > CANCELLED_REMEMBERED) this.cancelled.delete(this.cancelled.values().next().value!);
        p.reject(reason);
    }

    /** One incoming frame: read, judged, then answered, heard or matched. */
    private receive(frame: unknown): void {
        if (this.isClosed) return;
        if (frame instanceof FrameTooLarge) return this.answerUnreadable(RPC_CODES.invalidRequest, `invalid request: ${frame.message}`);
        if (typeof frame !== 'string') {
            return this.answerUnreadable(RPC_CODES.parseError, `parse error: a frame is JSON text, not ${frame === null ? 'null' : typeof frame}`);
        }
        const read = readMessage(frame);
        switch (read.kind) {
            case 'refused':
                if (read.id === undefined) return this.answerUnreadable(read.code, read.message);
                return this.answer(read.id, { ok: false, error: { code: read.code, message: read.message } });
            case 'notification':
                return this.hear(read.method, read.params, read.value);
            case 'request':
                return this.take(read.id, read.method, read.params);
            case 'response':
                return this.respond(read.value);
        }
    }

    /**
     * A request of the other side's: served at once when there is a place, else waiting for
     * one; refused when its id is being served already, or when too many wait.
     */
    private take(id: RpcId, method: string, params: unknown): void {
        if (this.serving.has(id)) {
            // Answered without the id: it is the one being served's.
            return this.answerUnreadable(RPC_CODES.invalidRequest, `invalid request: request ${JSON.stringify(id)} is already being served; an id is used once`);
        }
        const entry: Served = { controller: new AbortController(), cancelled: false, waiting: false };
        if (this.inFlight < this.maxInFlight) {
            this.serving.set(id, entry);
            void this.serve(id, method, params, entry);
            return;
        }
        if (this.waiting.length >= this.maxWaiting) {
            const message = `overloaded: ${this.maxWaiting} requests are waiting to be served; send this one again after an answer`;
            return this.answer(id, { ok: false, error: { code: RPC_CODES.overloaded, message } });
        }
        entry.waiting = true;
        this.serving.set(id, entry);
        this.waiting.push({ id, method, params, entry });
    }

    /** A place was freed: the next request waiting (not cancelled meanwhile) is served. */
    private serveWaiting(): void {
        while (this.inFlight < this.maxInFlight && !this.isClosed) {
            const w = this.waiting.shift();
            if (w === undefined) return;
            // Cancelled while it waited: it kept its place in the queue until now, as in the Rust connection.
            if (this.serving.get(w.id) !== w.entry) continue;
            w.entry.waiting = false;
            void this.serve(w.id, w.method, w.params, w.entry);
        }
    }

    /** A request of the other side's in its place: answered with the dispatcher's answer, unless cancelled first. */
    private async serve(id: RpcId, method: string, params: unknown, entry: Served): Promise<void> {
        this.inFlight++;
        let answer: DispatchAnswer;
        try {
            answer = await this.side.dispatch(method, params, { signal: entry.controller.signal });
        } catch (e) {
            // A generated dispatcher never throws; a hand-made side may.
            answer = { ok: false, error: { code: RPC_CODES.internalError, message: messageOf(e) } };
        } finally {
            this.inFlight--;
        }
        if (this.serving.get(id) !== entry) return; // The connection closed.
        this.serving.delete(id);
        this.serveWaiting();
        if (entry.cancelled) {
            const instead = this.options.cancel?.answer;
            if (instead === undefined) return;
            if (!answer.ok && answer.error.code === RPC_CODES.internalError) answer = { ok: false, error: instead };
        }
        this.answer(id, answer);
    }

    /** A notification: heard by its listener; a cancellation aborts the handler of its request. */
    private hear(method: string, params: unknown, frame: unknown): void {
        let heard: ReturnType<RpcSide['notify']>;
        try {
            heard = this.side.notify(method, params);
        } catch (e) {
            const report = this.options.onListenerError;
            if (report === undefined) queueMicrotask(() => { throw e; });
            else report(e, method);
            heard = { ok: true, heard: true };
        }
        if (!heard.ok) return this.invalid(`the params of ${method} are not valid: ${heard.message}`, frame);
        if (method !== this.options.cancel?.method) return;
        const p = params as { readonly requestId?: unknown; readonly reason?: unknown } | undefined;
        const entry = p === undefined || !Object.hasOwn(p, 'requestId') ? undefined : this.serving.get(p.requestId as RpcId);
        if (entry === undefined || entry.cancelled) return;
        entry.cancelled = true;
        if (entry.waiting) {
            // Never served: forgotten (its place in the queue is skipped when its turn comes), and
            // answered only where the protocol answers a cancelled request.
            const id = p!.requestId as RpcId;
            this.serving.delete(id);
            const instead = this.options.cancel?.answer;
            if (instead !== undefined) this.answer(id, { ok: false, error: instead });
            return;
        }
        const why = typeof p?.reason === 'string' ? p.reason : 'the other side cancelled the request';
        entry.controller.abort(new DOMException(why, 'AbortError'));
    }

    /** A response: read by the message schema, then the result or the error of the request of its id. */
    private respond(value: { readonly [key: string]: unknown }): void {
        const verdict = parseWith(this.envelope.message, value);
        const id = value.id;
        const p = typeof id === 'number' ? this.pending.get(id) : undefined;
        if (p === undefined) {
            if (verdict.ok && typeof id === 'number' && this.cancelled.delete(id)) return;
            const why = verdict.ok ? 'a response to no request in flight' : `a response the envelope refuses: ${verdict.message}`;
            return this.invalid(verdict.ok ? `${why} (id ${JSON.stringify(id)})` : why, value);
        }
        this.pending.delete(id as number);
        p.unlisten();
        if (!verdict.ok) p.reject(new InvalidResultError(p.method, verdict.message));
        else if (Object.hasOwn(value, 'result')) p.resolve((verdict.value as { result: unknown }).result);
        else p.reject(new RpcError((verdict.value as { error: RpcFailure }).error));
    }

    /** Answers a message whose id cannot be read (`null`, or no id: see the module's notes). */
    private answerUnreadable(code: number, message: string): void {
        const error = { code, message };
        this.sendAnswer(this.nullId ? { jsonrpc: '2.0', id: null, error } : { jsonrpc: '2.0', error }, 'an unreadable message');
    }

    /** Answers request `id`: its result, or its error; a result that cannot be sent (too large, say) fails the request instead. */
    private answer(id: Id, answer: DispatchAnswer): void {
        const what = `the request of id ${JSON.stringify(id)}`;
        if (!answer.ok) {
            this.sendAnswer({ jsonrpc: '2.0', id, error: errorObject(answer.error) }, what);
            return;
        }
        const failed = this.sendAnswer({ jsonrpc: '2.0', id, result: answer.result }, what);
        if (failed !== undefined) {
            this.sendAnswer({ jsonrpc: '2.0', id, error: { code: RPC_CODES.internalError, message: `the result could not be sent: ${failed}` } }, what);
        }
    }

    /** Sends an answer, unless closed; what the port threw, reported, when it could not be sent. */
    private sendAnswer(message: object, what: string): string | undefined {
        if (this.isClosed) return undefined;
        try {
            this.port.send(JSON.stringify(message));
            return undefined;
        } catch (e) {
            const failed = messageOf(e);
            this.invalid(`the answer to ${what} could not be sent: ${failed}`, message);
            return failed;
        }
    }

    private invalid(message: string, frame: unknown): void {
        this.options.onInvalidFrame?.(message, frame);
    }
}

/** A failure as JSON-RPC's error object: `data` only when there is one. */
function errorObject(f: RpcFailure): RpcFailure {
    return f.data === undefined ? { code: f.code, message: f.message } : { code: f.code, message: f.message, data: f.data };
}

/** A bound as the Rust connection's options take it: at least 1 (a count, rounded down). */
function atLeastOne(n: number): number {
    return Number.isNaN(n) ? 1 : Math.max(1, Math.floor(n));
}

function messageOf(e: unknown): string {
    return e instanceof Error ? e.message : String(e);
}

/** A connection's end, beside the typed calls a generated `connect<Protocol><Side>` answers. */
export interface RpcSession {
    /** Closes the connection ({@link RpcConnection.close}); the port stays open. */
    close(reason?: string): void;
    /** Settles once the connection has closed. */
    readonly closed: Promise<void>;
    /** The connection itself: untyped calls, for a method no table has. */
    readonly connection: RpcConnection;
}

/**
 * A connection over `port` serving `side`, and its typed calls (`calls`, a generated
 * `create<Protocol><Side>Calls`) with {@link RpcSession}'s close: what a generated
 * `connect<Protocol><Side>` answers.
 */
export function connectRpc<C extends object>(port: RpcPort, side: RpcSide, envelope: RpcEnvelope, options: RpcOptions, calls: (call: RawCall) => C): C & RpcSession {
    const connection = new RpcConnection(port, side, envelope, options);
    return Object.assign(calls(connection), {
        close: (reason?: string) => connection.close(reason),
        closed: connection.closed,
        connection,
    });
}
