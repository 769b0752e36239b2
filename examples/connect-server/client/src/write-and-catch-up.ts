#!/usr/bin/env node
// write-and-catch-up: the spec's sample client, against a real Agent Connect server.
//
// 1. Connects as a harness, says hello (accepting `events` pages), subscribes to the workspace
//    and writes events, reading an ack for each.
// 2. Drops its connection. While it is away, a second participant writes more events.
// 3. Reconnects, subscribes with `since` (the last seq it saw) and catches up on what it
//    missed, in seq order, in `events` pages.
// 4. Resends an event that was already acknowledged and expects `duplicate: true` with the
//    first seq; a fresh reader replaying the whole log finds it stored once.
// 5. Pings and expects a pong echoing the timestamp.
//
// Usage: write-and-catch-up --url ws://127.0.0.1:8787/v1/ws [--token scout-token]
//        [--other-token dana-token] [--workspace ws_demo] [--space spc_demo]
// Exits 0 when every step held, 1 with the reason otherwise.

import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import type { ClientFrame, ServerEvent } from '@adecore/connect-frames';
import { Connection } from './connection.js';

export interface Options {
    url: string;
    token: string;
    otherToken: string;
    workspace: string;
    space: string;
    log: (line: string) => void;
}

export function options(argv: string[]): Options {
    const { values } = parseArgs({
        args: argv,
        options: {
            url: { type: 'string', default: 'ws://127.0.0.1:8787/v1/ws' },
            token: { type: 'string', default: 'scout-token' },
            'other-token': { type: 'string', default: 'dana-token' },
            workspace: { type: 'string', default: 'ws_demo' },
            space: { type: 'string', default: 'spc_demo' },
        },
        strict: true,
    });
    return {
        url: values.url,
        token: values.token,
        otherToken: values['other-token'],
        workspace: values.workspace,
        space: values.space,
        log: (line) => console.log(line),
    };
}

/** A hello as this client says it. */
export function hello(): ClientFrame {
    return {
        frame: 'hello',
        protocol: { min: 1, max: 1 },
        client: { name: 'write-and-catch-up', version: '0.1.0' },
        accepts: ['events'],
    };
}

/** A message.post event frame with its own idempotency key inside the event. */
export function post(space: string, text: string, key: string): ClientFrame {
    return { frame: 'event', event: { type: 'message.post', space_id: space, text, idempotency_key: key } };
}

function check(cond: boolean, what: string): void {
    if (!cond) {
        throw new Error(what);
    }
}

/** Connects, says hello and subscribes; answers the connection and the replayed events. */
async function join(o: Options, token: string, since?: number): Promise<{ c: Connection; replay: ServerEvent[] }> {
    const c = await Connection.open(o.url, token);
    c.send(hello());
    const reply = await c.next('hello');
    check(reply.protocol === 1, `protocol ${reply.protocol}, expected 1`);
    c.send(since === undefined ? { frame: 'subscribe', workspace_id: o.workspace } : { frame: 'subscribe', workspace_id: o.workspace, since });
    const replay: ServerEvent[] = [];
    if (since !== undefined) {
        // The replay arrives at once, in pages; a ping round trip marks its end.
        const ts = Date.now();
        c.send({ frame: 'ping', ts });
        for (;;) {
            const f = await c.nextAny();
            if (f.frame === 'pong') {
                check(f.ts === ts, `pong echoed ${f.ts}, expected ${ts}`);
                break;
            }
            check(f.frame === 'events', `a replay to a client that accepts events comes in pages, got ${f.frame}`);
            if (f.frame === 'events') {
                check(f.events.length <= 500, `a page of ${f.events.length}`);
                replay.push(...f.events);
            }
        }
    }
    return { c, replay };
}

/** Writes an event and answers its ack, skipping the live event frames in between. */
async function write(c: Connection, frame: ClientFrame) {
    c.send(frame);
    for (;;) {
        const f = await c.nextAny();
        if (f.frame === 'ack') {
            return f;
        }
        if (f.frame === 'error') {
            throw new Error(`write refused: ${f.code}: ${f.message}`);
        }
    }
}

export async function run(o: Options): Promise<void> {
    const run = randomUUID().slice(0, 8);
    const key = (n: number) => `wacu-${run}-${n}`;

    // 1. Hello, subscribe, write three events, read the acks.
    const first = await join(o, o.token);
    const seqs: number[] = [];
    for (const n of [1, 2, 3]) {
        const ack = await write(first.c, post(o.space, `message ${n} of run ${run}`, key(n)));
        check(ack.idempotency_key === key(n), `ack names ${ack.idempotency_key}, expected ${key(n)}`);
        check(!ack.duplicate, `first write of ${key(n)} acked as a duplicate`);
        seqs.push(ack.seq);
    }
    check(seqs[0]! < seqs[1]! && seqs[1]! < seqs[2]!, `seqs not increasing: ${seqs}`);
    const since = seqs[2]!;
    o.log(`wrote ${key(1)}..${key(3)} at seqs ${seqs.join(', ')}`);

    // 2. Drop the connection; someone else writes while we are away.
    await first.c.drop();
    const other = await join(o, o.otherToken);
    const missed: number[] = [];
    for (const n of [4, 5]) {
        const ack = await write(other.c, post(o.space, `written while away ${n}`, key(n)));
        missed.push(ack.seq);
    }
    await other.c.drop();
    o.log(`dropped; meanwhile seqs ${missed.join(', ')} were written`);

    // 3. Reconnect with since and catch up, in seq order.
    const again = await join(o, o.token, since);
    const caught = again.replay.map((e) => e.seq);
    check(caught.every((s, i) => i === 0 || caught[i - 1]! < s), `replay not in seq order: ${caught}`);
    check(caught.every((s) => s > since), `replay holds seqs at or before since ${since}: ${caught}`);
    for (const s of missed) {
        check(caught.includes(s), `catch-up missed seq ${s}: got ${caught}`);
    }
    o.log(`caught up from since ${since}: seqs ${caught.join(', ')}`);

    // 4. Resend an acknowledged event: a duplicate with its first seq, stored once.
    const dup = await write(again.c, post(o.space, `message 1 of run ${run}`, key(1)));
    check(dup.duplicate, `a resend of ${key(1)} was not answered as a duplicate`);
    check(dup.seq === seqs[0], `the duplicate names seq ${dup.seq}, expected ${seqs[0]}`);
    const reader = await join(o, o.token, 0);
    const copies = reader.replay.filter((e) => e.idempotency_key === key(1)).length;
    check(copies === 1, `${key(1)} is stored ${copies} times`);
    o.log(`resent ${key(1)}: duplicate, seq ${dup.seq}, stored once`);

    // 5. Ping, pong.
    const ts = Date.now();
    again.c.send({ frame: 'ping', ts });
    for (;;) {
        const f = await again.c.nextAny();
        if (f.frame === 'pong') {
            check(f.ts === ts, `pong echoed ${f.ts}, expected ${ts}`);
            break;
        }
    }
    await again.c.drop();
    await reader.c.drop();
    o.log('write-and-catch-up: ok');
}

const invoked = process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (invoked) {
    run(options(process.argv.slice(2))).then(
        () => process.exit(0),
        (e: unknown) => {
            console.error(`write-and-catch-up: ${e instanceof Error ? e.message : String(e)}`);
            process.exit(1);
        },
    );
}
