// Hand-written (not generated): a FramePort over a WebSocket in Node, through the `ws` package
// (Node 20 has no global WebSocket). Exported as `@adecore/agent-contracts/node`, not from the
// root, so that only a consumer that imports it needs `ws` (an optional peer dependency).
//
// One frame is one JSON text message. The port checks nothing: a message that is not JSON is
// passed on as its text, and the client refuses it as it refuses any bad frame.

import WebSocket from 'ws';
import type { FramePort } from './port.js';

/** How a socket closed: its close code (1006 when the connection dropped) and reason. */
export interface SocketClose {
    code: number;
    reason: string;
}

/** An open WebSocket as a FramePort. */
export interface NodeSocketPort extends FramePort {
    /**
     * Sends one frame as a JSON text message; throws when the socket is no longer open (a
     * client answers the request with a `send-failed` RequestError).
     */
    send: FramePort['send'];
    /** Closes the socket (code 1000 unless given). */
    close(code?: number, reason?: string): void;
    /**
     * Settles once the socket has closed, from either end: `client.close()` on it rejects the
     * requests still waiting for a reply, which a closed socket never brings.
     */
    readonly closed: Promise<SocketClose>;
}

/** Options of {@link connectNodePort}. */
export interface NodePortOptions {
    /** Milliseconds the opening handshake may take before the connection fails (10 000). */
    openTimeoutMs?: number;
    /** Extra headers of the opening request (an `Authorization`, say). */
    headers?: Record<string, string>;
    /**
     * The host's client token, sent as `Authorization: Bearer TOKEN` (the example agent host
     * refuses the upgrade without it: 401). A browser, which cannot set headers, puts it in
     * the URL instead: `ws://127.0.0.1:8787/?token=TOKEN`.
     */
    token?: string;
    /** Subprotocols offered in `Sec-WebSocket-Protocol`. */
    protocols?: string | string[];
    /** The largest message accepted, in bytes; a larger one closes the socket (ws: 100 MiB). */
    maxPayload?: number;
}

/**
 * Opens a WebSocket to `url` (`ws://` or `wss://`) and answers its port once it is open, or
 * rejects with the reason it could not open (refused, a bad URL, no handshake in time, a
 * status other than 101).
 */
export function connectNodePort(url: string, options: NodePortOptions = {}): Promise<NodeSocketPort> {
    return new Promise((resolve, reject) => {
        let socket: WebSocket;
        const headers = {
            ...options.headers,
            ...(options.token === undefined ? {} : { Authorization: `Bearer ${options.token}` }),
        };
        try {
            socket = new WebSocket(url, options.protocols ?? [], {
                handshakeTimeout: options.openTimeoutMs ?? 10_000,
                ...(Object.keys(headers).length === 0 ? {} : { headers }),
                ...(options.maxPayload === undefined ? {} : { maxPayload: options.maxPayload }),
            });
        } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
            return;
        }
        const listeners = new Set<(frame: unknown) => void>();
        const closed = new Promise<SocketClose>((done) => {
            socket.once('close', (code, reason) => done({ code, reason: reason.toString() }));
        });
        socket.on('message', (data) => {
            const text = textOf(data);
            let frame: unknown;
            try {
                frame = JSON.parse(text);
            } catch {
                frame = text;
            }
            for (const l of [...listeners]) l(frame);
        });
        const port: NodeSocketPort = {
            send(frame) {
                if (socket.readyState !== WebSocket.OPEN) {
                    throw new Error(`the socket to ${url} is not open`);
                }
                socket.send(JSON.stringify(frame));
            },
            onFrame(listener) {
                listeners.add(listener);
                return () => listeners.delete(listener);
            },
            close(code = 1000, reason = '') {
                socket.close(code, reason);
            },
            closed,
        };
        const failed = (error: Error) => {
            socket.off('open', opened);
            reject(new Error(`could not open a WebSocket to ${url}: ${error.message}`, { cause: error }));
        };
        const opened = () => {
            socket.off('error', failed);
            // Errors after opening end in 'close', which `closed` reports.
            socket.on('error', () => {});
            resolve(port);
        };
        socket.once('open', opened);
        socket.once('error', failed);
    });
}

/** Reads bytes as a browser's WebSocket reads a message: a leading byte order mark dropped. */
const UTF8 = new TextDecoder();

/**
 * A message's bytes as text (a frame is UTF-8 JSON, in a text or a binary message), read as a
 * browser reads them (`TextDecoder`: a leading byte order mark dropped, U+FFFD for what is not
 * UTF-8), as the Rust ports read them too.
 */
function textOf(data: WebSocket.RawData): string {
    if (Array.isArray(data)) return UTF8.decode(Buffer.concat(data));
    if (data instanceof ArrayBuffer) return UTF8.decode(new Uint8Array(data));
    return UTF8.decode(data);
}
