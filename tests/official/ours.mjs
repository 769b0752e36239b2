// Our judges of the differential test (run.mjs): Rust through `cargo xtask validate`, Zod through
// the generated package bindings/<p>-contracts, ajv on that package's schema.json. Each is
// `{ name, missing?, echoes?, verdicts(lines) }`, where `verdicts` answers, for each line,
// `{ ok, why?, echo? }`: `echo` is null when an accepted message was written back equal as
// JSON, else what differs.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { kindOf } from './lib.mjs';

/** Runs `cargo xtask validate` with `args`, the texts on stdin, and answers its verdict lines
 * (the raw text of each). */
function validate(root, args, texts) {
    return new Promise((resolve, reject) => {
        const child = spawn('cargo', ['xtask', 'validate', ...args], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
        child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
        child.on('error', reject);
        child.on('close', (code) => {
            const lines = out.split('\n').filter((l) => l !== '');
            if (code !== 0 || lines.length !== texts.length) {
                resolve({ failed: `cargo xtask validate ${args.join(' ')}: exit ${code}, ${lines.length} verdicts for ${texts.length} lines\n${err.trim().split('\n').slice(-5).join('\n')}` });
            } else resolve({ lines });
        });
        child.stdin.on('error', () => {});
        child.stdin.end(texts.map((t) => `${t}\n`).join(''));
    });
}

/**
 * A JSON text parsed with each number kept as its token (`{ $number: '50.0' }`), so that a
 * number written back respelled (`50` as `50.0`) is seen.
 */
export function parseExact(text) {
    let i = 0;
    const ws = () => {
        while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
    };
    const value = () => {
        ws();
        const c = text[i];
        if (c === '{') {
            i++;
            const out = {};
            ws();
            if (text[i] === '}') {
                i++;
                return out;
            }
            for (;;) {
                ws();
                const k = string();
                ws();
                i++; // ':'
                out[k] = value();
                ws();
                if (text[i++] === '}') return out;
            }
        }
        if (c === '[') {
            i++;
            const out = [];
            ws();
            if (text[i] === ']') {
                i++;
                return out;
            }
            for (;;) {
                out.push(value());
                ws();
                if (text[i++] === ']') return out;
            }
        }
        if (c === '"') return string();
        const m = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 400));
        if (m === null) throw new Error(`not JSON at ${i}`);
        i += m[0].length;
        if (m[0] === 'true') return true;
        if (m[0] === 'false') return false;
        if (m[0] === 'null') return null;
        return { $number: m[0] };
    };
    const string = () => {
        const start = i;
        i++;
        while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
        i++;
        return JSON.parse(text.slice(start, i));
    };
    const v = value();
    return v;
}

/** Where two exact trees differ (keys in any order), or null. */
export function differs(a, b, path = '') {
    if (a !== null && typeof a === 'object' && b !== null && typeof b === 'object') {
        if ('$number' in a || '$number' in b) return a.$number === b.$number ? null : `${path || '(root)'}: ${a.$number ?? JSON.stringify(a)} written back as ${b.$number ?? JSON.stringify(b)}`;
        if (Array.isArray(a) !== Array.isArray(b)) return `${path || '(root)'}: an array and an object`;
        if (Array.isArray(a)) {
            if (a.length !== b.length) return `${path || '(root)'}: ${a.length} items written back as ${b.length}`;
            for (let k = 0; k < a.length; k++) {
                const d = differs(a[k], b[k], `${path}[${k}]`);
                if (d !== null) return d;
            }
            return null;
        }
        for (const k of Object.keys(a)) if (!(k in b)) return `${path}.${k}: dropped`;
        for (const k of Object.keys(b)) if (!(k in a)) return `${path}.${k}: added`;
        for (const k of Object.keys(a)) {
            const d = differs(a[k], b[k], `${path}.${k}`);
            if (d !== null) return d;
        }
        return null;
    }
    return a === b ? null : `${path || '(root)'}: ${JSON.stringify(a)} written back as ${JSON.stringify(b)}`;
}

/** The value text of an accepted echo verdict line (`{"ok":true,"value":...}`). */
function echoedText(line) {
    const at = line.indexOf('"value":');
    if (at < 0) return null;
    return line.slice(at + '"value":'.length, line.lastIndexOf('}'));
}

/** Rust: each message through `--as message --echo`, then each result's `result` through
 * `--as result --type <method>` where the line says which request it answers. */
function rustJudge(protocol, root) {
    return {
        name: 'rust',
        echoes: true,
        async verdicts(lines) {
            const texts = lines.map((l) => JSON.stringify(l.message));
            const whole = await validate(root, ['--protocol', protocol, '--as', 'message', '--echo'], texts);
            if (whole.failed !== undefined) throw new Error(whole.failed);
            const out = whole.lines.map((raw, i) => {
                const v = JSON.parse(raw);
                if (!v.ok) return { ok: false, why: `${v.stage}: ${v.message}` };
                const text = echoedText(raw);
                const echo = text === null ? 'no "value" in the verdict' : differs(parseExact(texts[i]), parseExact(text));
                return { ok: true, echo };
            });
            // Results by the method they answer, one run per method.
            const byMethod = new Map();
            lines.forEach((l, i) => {
                if (out[i].ok && kindOf(l.message) === 'result' && l.answers !== undefined) {
                    if (!byMethod.has(l.answers)) byMethod.set(l.answers, []);
                    byMethod.get(l.answers).push(i);
                }
            });
            for (const [method, idx] of byMethod) {
                const r = await validate(root, ['--protocol', protocol, '--as', 'result', '--type', method], idx.map((i) => JSON.stringify(lines[i].message.result)));
                if (r.failed !== undefined) throw new Error(r.failed);
                r.lines.forEach((raw, k) => {
                    const v = JSON.parse(raw);
                    if (!v.ok) out[idx[k]] = { ok: false, why: `result of ${method}: ${v.stage}: ${v.message}` };
                });
            }
            return out;
        },
    };
}

/** Our judges of a protocol: each available one, or with `missing` saying why not. */
export async function ourJudges(protocol, root) {
    const pkg = new URL(`bindings/${protocol}-contracts/`, root);
    const judges = [rustJudge(protocol, root)];
    // Whether the Rust validator knows the protocol's messages yet.
    const probe = await validate(root, ['--protocol', protocol, '--as', 'message', '--echo'], ['{"jsonrpc":"2.0","method":"ping","id":1}']);
    if (probe.failed !== undefined) judges[0].missing = probe.failed.split('\n').slice(0, 3).join(' / ');
    const built = existsSync(new URL('dist/src/index.js', pkg));
    const why = built ? undefined : `bindings/${protocol}-contracts is not built (npm ci && npm run build there)`;
    judges.push({ name: 'zod', missing: why ?? 'the adapter is not written yet' });
    judges.push({ name: 'schema', missing: existsSync(new URL('schema.json', pkg)) ? 'the adapter is not written yet' : `no bindings/${protocol}-contracts/schema.json` });
    return judges;
}
