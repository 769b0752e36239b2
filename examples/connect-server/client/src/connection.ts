// One Agent Connect connection over the `ws` package: every frame sent is checked with the
// generated ClientFrameSchema first, every frame received with the generated ServerFrameSchema.

import WebSocket from 'ws';
import { parseClientFrame, parseServerFrame, type ClientFrame, type ServerFrame } from '@adecore/connect-frames';

/** A server frame of one kind, picked by its `frame` tag. */
export type FrameOf<K extends ServerFrame['frame']> = Extract<ServerFrame, { frame: K }>;

export class Connection {
    private readonly queue: ServerFrame[] = [];
    private waiter: (() => void) | undefined;
    private closed = false;
    private failure: Error | undefined;

    private constructor(private readonly socket: WebSocket) {
        socket.on('message', (data, isBinary) => {
            if (isBinary) {
                this.fail(new Error('the server sent a binary message'));
                return;
            }
            let json: unknown;
            try {
                json = JSON.parse(data.toString());
            } catch {
                this.fail(new Error(`the server sent text that is not JSON: ${data.toString().slice(0, 200)}`));
                return;
            }
            const parsed = parseServerFrame(json);
            if (!parsed.ok) {
                this.fail(new Error(`the server sent an invalid frame:\n${parsed.message}\n${JSON.stringify(json)}`));
                return;
            }
            const frame = parsed.value;
            // The server pings every 20 seconds; answer at once, echoing the timestamp.
            if (frame.frame === 'ping') {
                this.send({ frame: 'pong', ts: frame.ts });
                return;
            }
            this.queue.push(frame);
            this.wake();
        });
        socket.on('close', () => {
            this.closed = true;
            this.wake();
        });
        socket.on('error', (e) => this.fail(e));
    }

    /** Opens a connection with the token as a bearer header. */
    static open(url: string, token: string): Promise<Connection> {
        return new Promise((resolve, reject) => {
            const socket = new WebSocket(url, { headers: { Authorization: `Bearer ${token}` } });
            const connection = new Connection(socket);
            socket.once('open', () => resolve(connection));
            socket.once('error', reject);
        });
    }

    /** Sends a client frame, refusing to send one the contract refuses. */
    send(frame: ClientFrame): void {
        const checked = parseClientFrame(frame);
        if (!checked.ok) {
            throw new Error(`refusing to send an invalid frame:\n${checked.message}`);
        }
        this.socket.send(JSON.stringify(checked.value));
    }

    /** The next frame of kind `kind`, failing on an error frame or after `timeoutMs`. */
    async next<K extends ServerFrame['frame']>(kind: K, timeoutMs = 5000): Promise<FrameOf<K>> {
        const frame = await this.nextAny(timeoutMs);
        if (frame.frame === kind) {
            return frame as FrameOf<K>;
        }
        if (frame.frame === 'error') {
            const key = frame.idempotency_key === undefined ? '' : ` (key ${frame.idempotency_key})`;
            throw new Error(`expected ${kind}, got error ${frame.code}${key}: ${frame.message}`);
        }
        throw new Error(`expected ${kind}, got ${JSON.stringify(frame)}`);
    }

    /** The next frame of any kind. */
    async nextAny(timeoutMs = 5000): Promise<ServerFrame> {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
            if (this.failure !== undefined) {
                throw this.failure;
            }
            const frame = this.queue.shift();
            if (frame !== undefined) {
                return frame;
            }
            if (this.closed) {
                throw new Error('the connection closed');
            }
            const left = deadline - Date.now();
            if (left <= 0) {
                throw new Error(`no frame within ${timeoutMs} ms`);
            }
            await new Promise<void>((resolve) => {
                const timer = setTimeout(resolve, left);
                this.waiter = () => {
                    clearTimeout(timer);
                    resolve();
                };
            });
        }
    }

    /** Whether a frame is waiting, without waiting. */
    pending(): number {
        return this.queue.length;
    }

    /** Drops the connection (as a network failure would) and waits until it is closed. */
    async drop(): Promise<void> {
        if (this.closed) {
            return;
        }
        await new Promise<void>((resolve) => {
            this.socket.once('close', () => resolve());
            this.socket.terminate();
        });
    }

    private fail(e: Error): void {
        this.failure ??= e;
        this.wake();
    }

    private wake(): void {
        const w = this.waiter;
        this.waiter = undefined;
        w?.();
    }
}
