// Newline-delimited JSON over a pair of Node streams (stdin and stdout, a child process's pipes,
// a socket) as an `RpcPort`: one JSON text per line, as MCP's and ACP's stdio transports frame
// messages. Read as the Rust runtime's NDJSON port reads: a trailing `\r` dropped, blank lines
// skipped, each line decoded as `TextDecoder` does (a leading byte order mark dropped, U+FFFD
// for what is not UTF-8), a line over the limit discarded as it streams by and delivered as a
// `FrameTooLarge`. Hand-written, part of `@adecore/agent-contracts/runtime`; typed by the
// shapes it uses, so a consumer needs no `@types/node`.

import type { RpcPort } from './rpc.js';

/** The largest line read or written by default, in bytes: the Rust ports' `DEFAULT_MAX_FRAME_SIZE`. */
export const DEFAULT_MAX_FRAME_BYTES = 1024 * 1024;

/** A frame over the size limit, read (and discarded) or refused before it was sent. */
export class FrameTooLarge extends Error {
    constructor(
        /** Its size in bytes, without the line break. */
        readonly size: number,
        /** The limit in bytes. */
        readonly limit: number,
    ) {
        super(`frame too large: ${size} bytes, the limit is ${limit} bytes`);
        this.name = 'FrameTooLarge';
    }
}

/** What {@link ndjsonPort} reads: a Node `Readable` (bytes, or text after `setEncoding`). */
export interface LineInput {
    on(event: 'data', listener: (chunk: Uint8Array | string) => void): unknown;
    on(event: 'end' | 'close', listener: () => void): unknown;
    on(event: 'error', listener: (error: Error) => void): unknown;
    off(event: 'data', listener: (chunk: Uint8Array | string) => void): unknown;
    off(event: 'end' | 'close', listener: () => void): unknown;
}

/** What {@link ndjsonPort} writes: a Node `Writable`. */
export interface LineOutput {
    write(text: string): unknown;
    /** `false` once the stream has ended, or failed: nothing more can be sent. */
    readonly writable?: boolean;
    end?(): unknown;
    /** A write's failure (a broken pipe) ends the port. */
    on?(event: 'error', listener: (error: Error) => void): unknown;
}

/** Options of {@link ndjsonPort}. */
export interface NdjsonOptions {
    /** The largest line read or written, in bytes without its line break ({@link DEFAULT_MAX_FRAME_BYTES}). */
    maxFrameBytes?: number;
}

/** An {@link RpcPort} over two streams; `close` stops reading and ends the output. */
export interface NdjsonPort extends RpcPort {
    /** Settles once the input has ended or failed, or the port was closed. */
    readonly closed: Promise<void>;
    close(): void;
}

const LF = 0x0a;
const CR = 0x0d;
const ENCODER = new TextEncoder();
const DECODER = new TextDecoder();

/**
 * One JSON text per line over `input` and `output`: a frame sent is written with a `\n`
 * (throwing {@link FrameTooLarge} over the limit, or an `Error` once the output is no longer
 * writable); each line read is delivered as its text, a line over the limit as a
 * {@link FrameTooLarge}. The input's end or failure, or the output's failure, settles `closed`.
 */
export function ndjsonPort(input: LineInput, output: LineOutput, options: NdjsonOptions = {}): NdjsonPort {
    const limit = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    const listeners = new Set<(frame: unknown) => void>();
    // The line so far: its chunks and size; `over` once it passed the limit (then only counted).
    let parts: Uint8Array[] = [];
    let size = 0;
    let over = false;
    let endsCr = false;
    let done = false;
    let settle!: () => void;
    const closed = new Promise<void>((resolve) => (settle = resolve));

    const deliver = (frame: unknown) => {
        for (const l of [...listeners]) l(frame);
    };
    // A line ended (by a line break, or the input's end): delivered, refused or skipped.
    const endLine = () => {
        // One byte of slack for a `\r` before the line break, as the Rust port reads.
        const length = size - (endsCr ? 1 : 0);
        if (over || length > limit) {
            deliver(new FrameTooLarge(length, limit));
        } else {
            const bytes = (parts.length === 1 ? parts[0]! : concat(parts, size)).subarray(0, length);
            // A blank line (ASCII whitespace only, as Rust's `is_ascii_whitespace`) is skipped.
            if (!bytes.every(isAsciiWhitespace)) deliver(DECODER.decode(bytes));
        }
        parts = [];
        size = 0;
        over = false;
        endsCr = false;
    };
    const onData = (chunk: Uint8Array | string) => {
        let bytes = typeof chunk === 'string' ? ENCODER.encode(chunk) : chunk;
        while (bytes.length > 0) {
            const at = bytes.indexOf(LF);
            const part = at < 0 ? bytes : bytes.subarray(0, at);
            size += part.length;
            if (part.length > 0) endsCr = part[part.length - 1] === CR;
            if (!over && size > limit + 1) {
                over = true;
                parts = [];
            }
            // A chunk's bytes are the stream's: kept as a copy (a Buffer may be reused).
            if (!over && part.length > 0) parts.push(new Uint8Array(part));
            if (at < 0) break;
            endLine();
            bytes = bytes.subarray(at + 1);
        }
    };
    const finish = () => {
        if (done) return;
        // The last line may end without a line break.
        if (size > 0 || over) endLine();
        done = true;
        // The error listeners stay: a stream that fails later must not throw an unhandled 'error'.
        input.off('data', onData);
        input.off('end', finish);
        input.off('close', finish);
        listeners.clear();
        settle();
    };
    input.on('data', onData);
    input.on('end', finish);
    input.on('close', finish);
    input.on('error', finish);
    output.on?.('error', finish);

    return {
        send(frame: string) {
            if (done || output.writable === false) throw new Error('the port is closed: nothing more can be sent');
            const bytes = ENCODER.encode(frame).length;
            if (bytes > limit) throw new FrameTooLarge(bytes, limit);
            output.write(`${frame}\n`);
        },
        onFrame(listener) {
            if (done) return () => false;
            listeners.add(listener);
            return () => listeners.delete(listener);
        },
        closed,
        close() {
            if (done) return;
            finish();
            output.end?.();
        },
    };
}

function isAsciiWhitespace(byte: number): boolean {
    return byte === 0x20 || byte === 0x09 || byte === LF || byte === 0x0c || byte === CR;
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
    const out = new Uint8Array(size);
    let at = 0;
    for (const p of parts) {
        out.set(p, at);
        at += p.length;
    }
    return out;
}
