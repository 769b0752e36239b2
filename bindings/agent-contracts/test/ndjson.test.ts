// The runtime's newline-delimited JSON port (`ndjsonPort`) over Node streams, read as the Rust
// NDJSON port reads: lines split across chunks (inside a UTF-8 character too), `\r\n`, blank
// lines skipped, each line decoded as TextDecoder does, a line over the limit delivered as a
// FrameTooLarge and reading going on, the last line without a line break; the input's end
// settles `closed`; a frame sent is one line, refused over the limit or once the output ended.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { FrameTooLarge, ndjsonPort } from '../src/runtime/index.js';

/** Writes `chunks` to a fresh input one by one, ends it, and answers what the port delivered. */
async function read(chunks: (string | Uint8Array)[], maxFrameBytes?: number): Promise<unknown[]> {
    const input = new PassThrough();
    const port = ndjsonPort(input, new PassThrough(), maxFrameBytes === undefined ? {} : { maxFrameBytes });
    const got: unknown[] = [];
    port.onFrame((f) => got.push(f instanceof FrameTooLarge ? { tooLarge: f.size, limit: f.limit, message: f.message } : f));
    for (const c of chunks) input.write(c);
    input.end();
    await port.closed;
    return got;
}

test('lines are read across chunks, a trailing \\r dropped, blank lines skipped', async () => {
    const euro = Buffer.from('€'); // three bytes, split below
    const chunks = [
        '{"a":1}\n{"b"',
        ':2}\r\n\n   \r\n\t\n{"c":"',
        euro.subarray(0, 1),
        euro.subarray(1),
        '"}\n',
        '{"last":true}',
    ];
    assert.deepEqual(await read(chunks), ['{"a":1}', '{"b":2}', '{"c":"€"}', '{"last":true}']);
});

test('each line is decoded as TextDecoder does: a leading byte order mark dropped, U+FFFD for what is not UTF-8', async () => {
    const bom = Uint8Array.of(0xef, 0xbb, 0xbf);
    const lines = await read([Buffer.concat([bom, Buffer.from('{"x":1}\n'), bom, Buffer.from('\n'), Uint8Array.of(0x22, 0xff, 0x22, 0x0a)])]);
    // A line of a byte order mark only is not blank (not ASCII whitespace): delivered as ''.
    assert.deepEqual(lines, ['{"x":1}', '', '"\ufffd"']);
});

test('a line over the limit is delivered as FrameTooLarge, and reading goes on', async () => {
    const long = 'x'.repeat(40);
    const got = await read([`"${long.slice(0, 10)}`, `${long.slice(10)}"\r\n`, '"ok"\n', '0123456789\r\n', '01234567891\n', `${long}`], 10);
    assert.deepEqual(got, [
        { tooLarge: 42, limit: 10, message: 'frame too large: 42 bytes, the limit is 10 bytes' },
        '"ok"',
        // Ten bytes and a `\r`: within the limit, the `\r` dropped.
        '0123456789',
        { tooLarge: 11, limit: 10, message: 'frame too large: 11 bytes, the limit is 10 bytes' },
        { tooLarge: 40, limit: 10, message: 'frame too large: 40 bytes, the limit is 10 bytes' },
    ]);
});

test('a frame sent is one line; over the limit or after the end it is refused', async () => {
    const output = new PassThrough();
    const written: string[] = [];
    output.on('data', (c: Buffer) => written.push(c.toString()));
    const input = new PassThrough();
    const port = ndjsonPort(input, output, { maxFrameBytes: 8 });
    port.send('{"a":1}');
    assert.throws(() => port.send('"€€€"'), (e: unknown) => e instanceof FrameTooLarge && e.size === 11 && e.limit === 8);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(written, ['{"a":1}\n']);
    port.close();
    await port.closed;
    assert.throws(() => port.send('1'), /the port is closed/);
    // Closing ends the output and stops reading.
    const heard: unknown[] = [];
    port.onFrame((f) => heard.push(f));
    input.write('"late"\n');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(heard, []);
    assert.equal(output.writableEnded, true);
});

test('the input or the output failing settles closed, and a later failure throws nothing', async () => {
    const input = new PassThrough();
    const port = ndjsonPort(input, new PassThrough());
    input.destroy(new Error('pipe broke'));
    await port.closed;
    assert.throws(() => port.send('1'), /the port is closed/);
    const output = new PassThrough();
    const other = new PassThrough();
    const second = ndjsonPort(other, output);
    output.destroy(new Error('EPIPE'));
    await second.closed;
    // The input fails after the port closed: still heard (an unheard 'error' would throw).
    other.destroy(new Error('late'));
    await new Promise((resolve) => setImmediate(resolve));
});
