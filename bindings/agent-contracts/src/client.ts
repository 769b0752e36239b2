// Hand-written (not generated): a typed client over any FramePort, parameterized by the
// generated tables. No table, name or shape is written here: the frames are the generated
// types, the tables are passed in (the agent's by default, or an app's that spreads them).

import { z } from 'zod';
import { parseServerFrame, parseServerFrameTyped } from './frames.js';
import { parseWith, type TypedParseResult } from './runtime/index.js';
import type { FramePort } from './port.js';
import type { ReplyError, ReplyOk, Request, ServerFrame, WireError } from './schemas.js';
import { AGENT_EVENT_SCHEMAS, AGENT_REQUEST_SCHEMAS } from './tables.js';

/** A request table: name -> `{ payload, result }` schemas (`AGENT_REQUEST_SCHEMAS` or an app's). */
export type RequestTable = { readonly [name: string]: { readonly payload: z.ZodType; readonly result: z.ZodType } };
/** An event table: name -> payload schema. */
export type EventTable = { readonly [name: string]: z.ZodType };

/** A table's own entry called `name`: `toString` or `__proto__` is a name like any other. */
function entryOf<T>(table: { readonly [name: string]: T }, name: string): T | undefined {
    return Object.hasOwn(table, name) ? table[name] : undefined;
}

/** The codes the client itself answers with, beside the host's. */
export const CLIENT_ERROR_CODES = {
    /** The payload did not match the table; nothing was sent. */
    invalidPayload: 'invalid-payload',
    /** The host's result did not match the table. */
    invalidResult: 'invalid-result',
    /** The client was closed before the reply came. */
    closed: 'client-closed',
    /** The port's `send` (or `newId`) threw; nothing waits for a reply. */
    sendFailed: 'send-failed',
} as const;

/** A failed request: a WireError (`code`, `message`) that is also an `Error`. */
export class RequestError extends Error implements WireError {
    readonly code: WireError['code'];
    /** `options.cause` keeps what was thrown, when the client itself failed. */
    constructor(error: WireError, options?: ErrorOptions) {
        super(error.message, options);
        this.name = 'RequestError';
        this.code = error.code;
    }
}

export interface ClientOptions<R extends RequestTable, E extends EventTable> {
    requests: R;
    events: E;
    /** Makes request ids; a counter by default. */
    newId?: () => string;
    /** Check payloads against the table before sending (default true). */
    checkPayloads?: boolean;
    /** Told about every frame that could not be used: unreadable, unmatched, a bad event payload. */
    onInvalidFrame?: (message: string, frame: unknown) => void;
    /**
     * Told about every throw of an event listener, with the event's name; the other listeners
     * get the event all the same. Without it, the first throw of an event is thrown again in a
     * microtask (`queueMicrotask`), where it is an uncaught exception, and the rest are dropped.
     * A throw of this function is thrown again in a microtask too.
     */
    onListenerError?: (error: unknown, event: string) => void;
    /**
     * The one-pass parse of a received frame over the same event table as `events` (a
     * package's generated `parseServerFrameTyped`: `createAgentClient` passes the agent's).
     * Without it the client runs the two stages itself; the verdicts and messages are the same.
     */
    parseFrame?: (input: unknown) => TypedParseResult<ServerFrame>;
}

type Pending = { type: string; resolve: (value: unknown) => void; reject: (error: RequestError) => void };

/** A typed client: `request` resolves to the table's result type, `on` listens by event name. */
export class ContractClient<R extends RequestTable, E extends EventTable> {
    private readonly pending = new Map<string, Pending>();
    private readonly listeners = new Map<string, Set<(payload: unknown) => void>>();
    private readonly stop: () => void;
    private next = 0;
    private closed = false;

    constructor(
        private readonly port: FramePort,
        private readonly options: ClientOptions<R, E>,
    ) {
        this.stop = port.onFrame((frame) => this.receive(frame));
    }

    /** Send a request; resolves to its result, or rejects with a {@link RequestError}. Never throws. */
    request<K extends keyof R & string>(type: K, payload: z.input<R[K]['payload']>): Promise<z.output<R[K]['result']>> {
        if (this.closed) {
            return Promise.reject(new RequestError({ code: CLIENT_ERROR_CODES.closed, message: 'the client is closed' }));
        }
        const entry = entryOf(this.options.requests, type);
        let body: unknown = payload;
        if (entry && this.options.checkPayloads !== false) {
            const checked = parseWith(entry.payload, payload);
            if (!checked.ok) {
                return Promise.reject(new RequestError({ code: CLIENT_ERROR_CODES.invalidPayload, message: checked.message }));
            }
            body = payload;
        }
        return new Promise((resolve, reject) => {
            let id: string | undefined;
            try {
                id = this.options.newId ? this.options.newId() : `${++this.next}`;
                const frame: Request = { id, type, payload: body };
                this.pending.set(id, { type, resolve: resolve as (value: unknown) => void, reject });
                this.port.send(frame);
            } catch (error) {
                // Nothing was sent (a closed socket, say): no reply will come for this id.
                if (id !== undefined) this.pending.delete(id);
                const message = `${type} could not be sent: ${error instanceof Error ? error.message : String(error)}`;
                reject(new RequestError({ code: CLIENT_ERROR_CODES.sendFailed, message }, { cause: error }));
            }
        });
    }

    /** Listen to an event; answers the function that stops listening. */
    on<K extends keyof E & string>(event: K, listener: (payload: z.output<E[K]>) => void): () => void {
        let set = this.listeners.get(event);
        if (!set) {
            set = new Set();
            this.listeners.set(event, set);
        }
        const l = listener as (payload: unknown) => void;
        set.add(l);
        return () => set.delete(l);
    }

    /** Stop listening to the port and reject every request still waiting. */
    close(): void {
        if (this.closed) return;
        this.closed = true;
        this.stop();
        for (const p of this.pending.values()) {
            p.reject(new RequestError({ code: CLIENT_ERROR_CODES.closed, message: 'the client was closed before the reply' }));
        }
        this.pending.clear();
    }

    private receive(raw: unknown): void {
        const typed = this.options.parseFrame?.(raw);
        if (typed !== undefined) {
            if (typed.ok) {
                const frame = typed.value;
                if ('ok' in frame) return this.reply(frame, raw);
                // The payload is the table's already; a name this client's table does not know
                // is ignored, as below.
                if (entryOf(this.options.events, frame.event)) this.emit(frame.event, frame.payload);
                return;
            }
            if (typed.stage === 'envelope') return this.options.onInvalidFrame?.(typed.message, raw);
            // A table refusal: the two stages below say whether the name is unknown (ignored)
            // or the payload bad (reported, with the same message).
        }
        const parsed = parseServerFrame(raw);
        if (!parsed.ok) {
            this.options.onInvalidFrame?.(parsed.message, raw);
            return;
        }
        const frame = parsed.value;
        if ('ok' in frame) return this.reply(frame, raw);
        const entry = entryOf(this.options.events, frame.event);
        if (!entry) return; // an event this client's table does not know: a newer host's
        const payload = parseWith(entry, frame.payload);
        if (!payload.ok) return this.options.onInvalidFrame?.(payload.message, raw);
        this.emit(frame.event, payload.value);
    }

    private emit(event: string, payload: unknown): void {
        // A listener's throw stops neither the others nor the port's frame callback.
        let first: { error: unknown } | undefined;
        for (const l of [...(this.listeners.get(event) ?? [])]) {
            try {
                l(payload);
            } catch (error) {
                const unreported = this.reportListenerError(error, event);
                first ??= unreported;
            }
        }
        if (first) {
            const { error } = first;
            queueMicrotask(() => {
                throw error;
            });
        }
    }

    /** Hands a listener's throw to `onListenerError`; answers what nobody took, if anything. */
    private reportListenerError(error: unknown, event: string): { error: unknown } | undefined {
        const report = this.options.onListenerError;
        if (!report) return { error };
        try {
            report(error, event);
            return undefined;
        } catch (thrown) {
            return { error: thrown };
        }
    }

    private reply(frame: ReplyOk | ReplyError, raw: unknown): void {
        if (!frame.ok) return this.fail(frame, raw);
        const p = this.pending.get(frame.id);
        if (!p) return this.options.onInvalidFrame?.(`no request has the id ${frame.id}`, raw);
        this.pending.delete(frame.id);
        const entry = entryOf(this.options.requests, p.type);
        const result = entry ? parseWith(entry.result, frame.result) : { ok: true as const, value: frame.result };
        if (result.ok) p.resolve(result.value);
        else p.reject(new RequestError({ code: CLIENT_ERROR_CODES.invalidResult, message: result.message }));
    }

    private fail(frame: ReplyError, raw: unknown): void {
        if (frame.id === null) {
            // The host could not read a request; which one is unknown.
            this.options.onInvalidFrame?.(frame.error.message, raw);
            return;
        }
        const p = this.pending.get(frame.id);
        if (!p) return this.options.onInvalidFrame?.(`no request has the id ${frame.id}`, raw);
        this.pending.delete(frame.id);
        p.reject(new RequestError(frame.error));
    }
}

/** The agent protocol's client. */
export type AgentClient = ContractClient<typeof AGENT_REQUEST_SCHEMAS, typeof AGENT_EVENT_SCHEMAS>;

/** A client for the agent tables over `port`. */
export function createAgentClient(
    port: FramePort,
    options: Omit<ClientOptions<typeof AGENT_REQUEST_SCHEMAS, typeof AGENT_EVENT_SCHEMAS>, 'requests' | 'events' | 'parseFrame'> = {},
): AgentClient {
    return new ContractClient(port, {
        ...options,
        requests: AGENT_REQUEST_SCHEMAS,
        events: AGENT_EVENT_SCHEMAS,
        parseFrame: parseServerFrameTyped,
    });
}
