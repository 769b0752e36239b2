// The TypeScript half of the cross-side check of JSON-RPC refusals (`tests/rpc-parity/`): each
// case of `cases.jsonl` is sent, frame by frame, to a fresh connection serving MCP's server side
// (`connectMcpHost`) and one serving ACP's agent side (`connectAcpHost`); what the connection
// writes back is compared with `expected.jsonl`, which the Rust connection is compared with too
// (`contracts/tests/rpc_parity.rs`, where `UPDATE_EXPECT=1` rewrites it). Both sides thus answer
// every case with the same codes, words and ids.
//
// The servers implement one method, which holds its request until the case's frames are all
// sent: MCP's `tools/call` (named `hold` in the cases), ACP's `session/prompt`. Everything else is
// answered as a server that implements nothing answers it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { DEFAULT_MAX_IN_FLIGHT, type RpcPort, type RpcSession } from '@adecore/agent-contracts/runtime';
import { connectMcpHost } from '@adecore/mcp-contracts';
import { connectAcpHost } from '@adecore/acp-contracts';

const DIR = new URL('../../../../tests/rpc-parity/', import.meta.url);

type Case = { case: string; send?: string[]; mcp?: string[]; acp?: string[]; bounds?: [number, number] };

/** A JSON value with every object's keys sorted: the form both sides compare in. */
function canonical(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(canonical);
    if (typeof value !== 'object' || value === null) return value;
    const o = value as { readonly [key: string]: unknown };
    return Object.fromEntries(Object.keys(o).sort().map((k) => [k, canonical(o[k])]));
}

/** Lets every microtask run: the port below is synchronous, the connection's work is all microtasks. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** What a case's server shares with the runner: how many held handlers started, and their release. */
class Hold {
    started = 0;
    private release!: () => void;
    private readonly released = new Promise<void>((resolve) => (this.release = resolve));

    async wait(): Promise<void> {
        this.started++;
        await this.released;
    }

    go(): void {
        this.release();
    }
}

const PROTOCOLS = {
    mcp: {
        held: (m: { method?: unknown; params?: { name?: unknown } }) => m.method === 'tools/call' && m.params?.name === 'hold',
        connect: (port: RpcPort, hold: Hold, bounds: { maxInFlight?: number; maxWaiting?: number }): RpcSession =>
            connectMcpHost(port, {
                ...bounds,
                cancel: { method: 'notifications/cancelled' },
                handlers: {
                    'tools/call': async (p) => {
                        await hold.wait();
                        return { content: [{ type: 'text', text: p.name }] };
                    },
                },
            }),
    },
    acp: {
        held: (m: { method?: unknown; params?: { sessionId?: unknown } }) => m.method === 'session/prompt' && m.params?.sessionId === 'hold',
        connect: (port: RpcPort, hold: Hold, bounds: { maxInFlight?: number; maxWaiting?: number }): RpcSession =>
            connectAcpHost(port, {
                ...bounds,
                cancel: { method: '$/cancel_request', answer: { code: -32800, message: 'Request cancelled' } },
                handlers: {
                    'session/prompt': async () => {
                        await hold.wait();
                        return { stopReason: 'end_turn' };
                    },
                },
            }),
    },
} as const;

/**
 * Sends `texts` to a fresh connection of `protocol`, checking after each that every held request
 * that can have a place has started (as the Rust runner waits for); then releases the held ones
 * and answers every frame the connection wrote.
 */
async function runCase(protocol: keyof typeof PROTOCOLS, texts: string[], bounds: Case['bounds']): Promise<unknown[]> {
    const sent: unknown[] = [];
    let deliver!: (frame: unknown) => void;
    const port: RpcPort = {
        send: (frame) => void sent.push(canonical(JSON.parse(frame))),
        onFrame: (listener) => {
            deliver = listener;
            return () => {};
        },
    };
    const hold = new Hold();
    const p = PROTOCOLS[protocol];
    const connection = p.connect(port, hold, bounds === undefined ? {} : { maxInFlight: bounds[0], maxWaiting: bounds[1] });
    const inFlight = bounds?.[0] ?? DEFAULT_MAX_IN_FLIGHT;
    let heldSent = 0;
    for (const text of texts) {
        deliver(text);
        await settle();
        let message: unknown;
        try {
            message = JSON.parse(text);
        } catch {
            message = undefined;
        }
        if (typeof message === 'object' && message !== null && Object.hasOwn(message, 'id') && p.held(message)) heldSent++;
        assert.equal(hold.started, Math.min(heldSent, inFlight), `${protocol}: held requests started after ${text}`);
    }
    hold.go();
    // Each settle lets every answer and the next request served run; stop once nothing more comes.
    for (let before = -1; before !== sent.length; ) {
        before = sent.length;
        await settle();
    }
    connection.close();
    return sent;
}

test('the TypeScript connection answers every case of tests/rpc-parity as expected.jsonl (the Rust connection\'s) records', { timeout: 30_000 }, async () => {
    const cases = readFileSync(new URL('cases.jsonl', DIR), 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Case);
    assert.ok(cases.length >= 40, `${cases.length} cases`);
    let out = '';
    for (const c of cases) {
        for (const protocol of ['mcp', 'acp'] as const) {
            const texts = c[protocol] ?? c.send;
            assert.ok(texts !== undefined, `${c.case}: a case has \`send\`, or \`mcp\` and \`acp\``);
            const answers = await runCase(protocol, texts, c.bounds);
            out += `${JSON.stringify(canonical({ answers, case: c.case, protocol }))}\n`;
        }
    }
    const expected = readFileSync(new URL('expected.jsonl', DIR), 'utf8');
    // Line by line first, for a readable difference; then the whole text.
    const [got, want] = [out.split('\n'), expected.split('\n')];
    for (let i = 0; i < Math.max(got.length, want.length); i++) assert.equal(got[i], want[i], `expected.jsonl line ${i + 1}`);
    assert.equal(out, expected);
});
