// The differential test against the official schemas (tests/official/README.md):
//
//   node tests/official/run.mjs [--protocol mcp|acp]... [--official-only] [--seed N] [--verbose]
//                               [--judge rust|zod|schema]... [--ours-root DIR]
//
// For each protocol, every message of the official examples (tests/official/<p>/examples.jsonl),
// of our hand-written examples (tests/corpus/<p>/examples.jsonl) and of the generated corpus
// (generate.mjs, seed 37 unless --seed) is judged by the official JSON Schema (ajv, lib.mjs) and
// by ours: Rust (`cargo xtask validate --protocol <p> --as message --echo`, a result also by
// `--as result --type <method>`), Zod (the package bindings/<p>-contracts) and ajv on our
// generated JSON Schema (bindings/<p>-contracts/schema.json). Every verdict must be the
// official one, and a message Rust accepts must be written back equal as JSON (every key, every
// number as written). A difference is allowed only where expected-differences.json lists it,
// with its reason; an entry that no longer matches anything fails too, so the list stays true.
//
// --official-only judges by the official schema alone (what works before our validators of a
// protocol exist) and prints its figures. Exit 0 when all agree, 1 on a disagreement, 2 on a
// usage error.

import { readFileSync } from 'node:fs';
import { ajv2020 } from './ajv.mjs';
import { HERE, PROTOCOLS, loadProtocol, readExamples } from './lib.mjs';
import { SEED, generate } from './generate.mjs';
import { ourJudges } from './ours.mjs';

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const values = (name) => argv.flatMap((a, i) => (a === name ? [argv[i + 1]] : []));
const protocols = values('--protocol').length > 0 ? values('--protocol') : PROTOCOLS;
for (const p of protocols) {
    if (!PROTOCOLS.includes(p)) {
        console.error(`tests/official/run.mjs: unknown protocol ${p}: one of ${PROTOCOLS.join(', ')}`);
        process.exit(2);
    }
}
const seed = values('--seed').length > 0 ? Number(values('--seed')[0]) : SEED;
const officialOnly = flag('--official-only');
const verbose = flag('--verbose');
// A trial on another checkout's bindings and xtask (`--ours-root DIR`), some judges only
// (`--judge rust|zod|schema`, as often as needed).
const oursRoot = values('--ours-root').length > 0 ? new URL(`file://${values('--ours-root')[0].replace(/\/?$/, '/')}`) : undefined;
const only = values('--judge');

const ROOT = new URL('../../', import.meta.url);
const expected = JSON.parse(readFileSync(new URL('expected-differences.json', HERE), 'utf8')).differences;
const used = new Map(expected.map((e) => [e.id, 0]));

/**
 * The expected difference that covers a line's disagreement with one judge, or undefined:
 * `official` and `ours` the verdicts, `why` the refusing side's reason; `echo` what an
 * accepted message's write-back lost (both accept), else undefined.
 */
function listed(protocol, line, judge, official, ours, why, echo) {
    return expected.find(
        (e) =>
            (e.protocols ?? PROTOCOLS).includes(protocol) &&
            (e.judges ?? ['rust', 'zod', 'schema']).includes(judge) &&
            e.official === official &&
            e.ours === ours &&
            (e.echo === undefined) === (echo === undefined) &&
            (e.echo === undefined || new RegExp(e.echo).test(echo)) &&
            (e.why === undefined || new RegExp(e.why).test(why ?? '')) &&
            (e.where === undefined || new RegExp(e.where).test(line.where)) &&
            (e.note === undefined || new RegExp(e.note).test(line.note)) &&
            (e.message === undefined || new RegExp(e.message).test(JSON.stringify(line.message))) &&
            (e.method === undefined || new RegExp(e.method).test(line.message?.method ?? line.answers ?? '')),
    );
}

const short = (v, n = 300) => {
    const s = typeof v === 'string' ? v : JSON.stringify(v);
    return s.length > n ? `${s.slice(0, n)}...` : s;
};

const Ajv2020 = await ajv2020();
let failures = 0;
for (const protocol of protocols) {
    const P = loadProtocol(protocol, Ajv2020);
    const generated = generate(P, seed);
    const sources = [
        ['official examples', readExamples(new URL(`${protocol}/examples.jsonl`, HERE), `tests/official/${protocol}/examples.jsonl`)],
        ['our examples', readExamples(new URL(`tests/corpus/${protocol}/examples.jsonl`, ROOT), `tests/corpus/${protocol}/examples.jsonl`)],
        [`generated (seed ${seed})`, generated.lines],
    ];
    const lines = sources.flatMap(([, ls]) => ls);
    const official = lines.map((l) => P.verdict(l));
    console.log(`\n${protocol}: ${lines.length} messages`);
    for (const [name, ls] of sources) {
        const accepted = ls.filter((l) => official[lines.indexOf(l)].ok).length;
        console.log(`  ${name}: ${ls.length} (the official schema accepts ${accepted}, refuses ${ls.length - accepted})`);
    }
    if (generated.stats.givenUp.length > 0) console.log(`  generated: no valid message made for ${generated.stats.givenUp.join(', ')}`);
    if (officialOnly) continue;

    const judges = (await ourJudges(protocol, oursRoot ?? ROOT, Ajv2020, only)).filter((j) => only.length === 0 || only.includes(j.name));
    const missing = judges.filter((j) => j.missing !== undefined);
    for (const j of missing) {
        console.log(`  ${j.name}: not available: ${j.missing}`);
        failures++;
    }
    for (const judge of judges.filter((j) => j.missing === undefined)) {
        let verdicts;
        try {
            verdicts = await judge.verdicts(lines);
        } catch (e) {
            console.log(`  ${judge.name}: could not judge: ${e instanceof Error ? e.message : String(e)}`);
            failures++;
            continue;
        }
        let agree = 0;
        let echoed = 0;
        const allowed = new Map();
        const wrong = [];
        lines.forEach((line, i) => {
            const o = official[i];
            const v = verdicts[i];
            const count = (e) => {
                used.set(e.id, used.get(e.id) + 1);
                allowed.set(e.id, (allowed.get(e.id) ?? 0) + 1);
            };
            if (v.ok === o.ok) {
                agree++;
                if (v.ok && v.echo !== undefined) {
                    if (v.echo === null) echoed++;
                    else {
                        const e = listed(protocol, line, judge.name, true, true, undefined, v.echo);
                        if (e === undefined) wrong.push(`${line.where} (${line.note}): accepted, written back otherwise: ${v.echo}\n    message: ${short(line.message)}`);
                        else {
                            count(e);
                            if (verbose) console.log(`    listed ${e.id} (${judge.name}): ${line.where} (${line.note}): ${v.echo}`);
                        }
                    }
                }
                return;
            }
            const e = listed(protocol, line, judge.name, o.ok, v.ok, v.ok ? o.why : v.why);
            if (e !== undefined) {
                count(e);
                if (verbose) console.log(`    listed ${e.id} (${judge.name}): ${line.where} (${line.note}): ${v.ok ? `official: ${short(o.why ?? '', 160)}` : short(v.why ?? '', 160)}`);
                return;
            }
            wrong.push(
                `${line.where} (${line.note}): official ${o.ok ? 'accepts' : 'refuses'}, ${judge.name} ${v.ok ? 'accepts' : 'refuses'}` +
                    `\n    message: ${short(line.message)}` +
                    (o.ok ? '' : `\n    official: ${short(o.why)}`) +
                    (v.ok ? '' : `\n    ${judge.name}: ${short(v.why ?? '')}`),
            );
        });
        const listedCount = [...allowed.values()].reduce((a, b) => a + b, 0);
        const echoNote = judge.echoes ? `, ${echoed} written back equal` : '';
        console.log(
            `  ${judge.name}: ${agree} of ${lines.length} agree${echoNote}; ${listedCount} listed differences` +
                (allowed.size > 0 ? ` (${[...allowed].map(([id, n]) => `${id} ${n}`).join(', ')})` : '') +
                `; ${wrong.length} disagreements`,
        );
        for (const w of wrong.slice(0, verbose ? wrong.length : 40)) console.log(`    ${w.replace(/\n/g, '\n    ')}`);
        if (wrong.length > 40 && !verbose) console.log(`    ... and ${wrong.length - 40} more (--verbose shows them all)`);
        failures += wrong.length;
    }
}

if (!officialOnly) {
    // Entries of the list for protocols not run are not judged stale.
    for (const e of expected) {
        const mine = (e.protocols ?? PROTOCOLS).some((p) => protocols.includes(p));
        if (mine && only.length === 0 && used.get(e.id) === 0) {
            console.log(`\nexpected-differences.json: ${e.id} matched no line: remove it, or say why it is kept`);
            failures++;
        }
    }
}
console.log(failures === 0 ? '\nofficial: all agree' : `\nofficial: ${failures} failures`);
process.exit(failures === 0 ? 0 : 1);
