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
// With --state FILE, what it wrote and the last seq it saw are kept in FILE, as a real client
// keeps its cursor. A run that finds FILE first resumes: it subscribes with the stored since
// (catching up on what was written meanwhile, across a server restart), checks that every
// event it was acked is still there at its seq, and that a resend of one is a duplicate. A
// server whose log lost its tail (a memory log restarted) refuses that since with not_found:
// the client drops its cursor and resumes from since 0, and resends what the server forgot.
//
// Usage: write-and-catch-up --url ws://127.0.0.1:8787/v1/ws [--token scout-token]
//        [--other-token dana-token] [--workspace ws_demo] [--space spc_demo] [--state FILE]
// Exits 0 when every step held, 1 with the reason otherwise.

import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { ClientFrame, ServerEvent } from '@adecore/connect-frames';
import { Connection } from './connection.js';

export interface Options {
    url: string;
    token: string;
    otherToken: string;
    workspace: string;
    space: string;
    state: string | undefined;
    log: (line: string) => void;
}

/** What --state keeps between runs: the last seq seen, and every key acked with its seq. */
export interface State {
    since: number;
    acked: [string, number][];
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
            state: { type: 'string' },
        },
        strict: true,
    });
    return {
        url: values.url,
        token: values.token,
        otherToken: values['other-token'],
        workspace: values.workspace,
        space: values.space,
        state: values.state,
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

/** Connects, says hello and subscribes; answers the connection, the replayed events and the
 *  since they were replayed from. A since the server's log never held (not_found) is dropped
 *  and the replay starts from 0, as the server's error asks. */
async function join(o: Options, token: string, since?: number): Promise<{ c: Connection; replay: ServerEvent[]; from?: number }> {
    const c = await Connection.open(o.url, token);
    c.send(hello());
    const reply = await c.next('hello');
    check(reply.protocol === 1, `protocol ${reply.protocol}, expected 1`);
    if (since === undefined) {
        c.send({ frame: 'subscribe', workspace_id: o.workspace });
        return { c, replay: [] };
    }
    let from = since;
    for (;;) {
        c.send({ frame: 'subscribe', workspace_id: o.workspace, since: from });
        // The replay comes in pages, a page at a time as the socket drains; the subscription
        // is live once it caught up, so a ping round trip after it marks its end.
        const replay: ServerEvent[] = [];
        const ts = Date.now();
        c.send({ frame: 'ping', ts });
        let refused = false;
        for (;;) {
            const f = await c.nextAny();
            if (f.frame === 'pong' && f.ts === ts) {
                break;
            }
            if (f.frame === 'error' && f.code === 'not_found' && from > 0) {
                o.log(`since ${from} refused (not_found: ${f.message}); resuming from since 0`);
                refused = true;
                continue;
            }
            check(f.frame === 'events', `a replay to a client that accepts events comes in pages, got ${JSON.stringify(f)}`);
            if (f.frame === 'events') {
                check(f.events.length <= 500, `a page of ${f.events.length}`);
                replay.push(...f.events);
            }
        }
        if (!refused) {
            return { c, replay, from };
        }
        from = 0;
    }
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

/** A run that found --state: resumes from the stored since, across whatever happened to the
 *  server meanwhile, and checks that what it was acked is still there. */
async function resume(o: Options, state: State): Promise<void> {
    const back = await join(o, o.token, state.since);
    if (back.from === 0 && state.since > 0) {
        // The server lost its log: what it acked is gone, so this client writes it again.
        o.log(`the server's log does not hold since ${state.since}: resending ${state.acked.length} events`);
        for (const [k] of state.acked) {
            await write(back.c, post(o.space, `resent ${k}`, k));
        }
    } else {
        const seqs = back.replay.map((e) => e.seq);
        check(seqs.every((s) => s > state.since), `a replay from since ${state.since} holds ${seqs}`);
        // Everything acked before is still there at its seq, stored once.
        const reader = await join(o, o.token, 0);
        for (const [k, seq] of state.acked) {
            const copies = reader.replay.filter((e) => e.idempotency_key === k);
            check(copies.length === 1 && copies[0]!.seq === seq, `${k} (acked at ${seq}) is stored ${copies.length} times`);
        }
        const [k, seq] = state.acked[0]!;
        const dup = await write(back.c, post(o.space, `again ${k}`, k));
        check(dup.duplicate && dup.seq === seq, `a resend of ${k} after the restart: ${JSON.stringify(dup)}`);
        await reader.c.drop();
        o.log(`resumed from since ${state.since}: seqs ${seqs.join(', ')}; ${state.acked.length} acked events kept; ${k} is a duplicate at ${seq}`);
    }
    await back.c.drop();
}

export async function run(o: Options): Promise<void> {
    const run = randomUUID().slice(0, 8);
    const key = (n: number) => `wacu-${run}-${n}`;
    const acked: [string, number][] = [];
    if (o.state !== undefined && existsSync(o.state)) {
        const state = JSON.parse(readFileSync(o.state, 'utf8')) as State;
        await resume(o, state);
        acked.push(...state.acked);
    }

    // 1. Hello, subscribe, write three events, read the acks.
    const first = await join(o, o.token);
    const seqs: number[] = [];
    for (const n of [1, 2, 3]) {
        const ack = await write(first.c, post(o.space, `message ${n} of run ${run}`, key(n)));
        check(ack.idempotency_key === key(n), `ack names ${ack.idempotency_key}, expected ${key(n)}`);
        check(!ack.duplicate, `first write of ${key(n)} acked as a duplicate`);
        seqs.push(ack.seq);
        acked.push([key(n), ack.seq]);
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
    if (o.state !== undefined) {
        const last = Math.max(since, ...caught, ...missed);
        const state: State = { since: last, acked };
        writeFileSync(o.state, JSON.stringify(state));
    }
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
