// The npm packages as a consumer gets them (`cargo xtask test` runs this as `npm test`):
//
// 1. each package is packed as from a clean checkout (its `dist/` removed first, so `prepare`
//    must build it) and its tarball holds the build, the sources, schema.json and the license
//    files, and no tests;
// 2. publint (--strict) and arethetypeswrong (the ESM-only profile: the packages are ESM) run
//    on each tarball, from the packages' dev dependencies (the root's workspace install);
// 3. a temporary copy of this directory is installed from its lock file (`npm ci`), then the
//    tarballs are added to it (`--no-save`: the agent package, the app package built against
//    it, the connect, MCP and ACP packages), with exactly one zod (the consumer's: it is a
//    peer) and one agent package (the runtime's: the other packages have it as a peer);
// 4. src/main.ts is type-checked with `tsc --strict` under nodenext and bundler resolution,
//    compiled, and run.
//
// Needs the repository's workspace install (`npm ci` at the root) and this directory's. Every command
// has a time limit; the temporary directory is removed at the end unless KEEP_NPM_CONSUMER is
// set.

import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const ROOT = join(HERE, '..', '..');
/** The packages, in dependency order. */
const PACKAGES = [
    'bindings/agent-contracts',
    'bindings/connect-frames',
    'bindings/mcp-contracts',
    'bindings/acp-contracts',
    'examples/documents-app/bindings/documents-contracts',
];
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Runs a command in `cwd`, failing with its output; answers its stdout. */
function run(cwd, program, args, timeoutMs = 120_000) {
    const rel = relative(ROOT, cwd);
    const where = rel === '' ? '.' : rel.startsWith('..') ? cwd : rel;
    console.log(`npm consumer: (${where}) ${program} ${args.join(' ')}`);
    try {
        return execFileSync(program, args, {
            cwd,
            encoding: 'utf8',
            timeout: timeoutMs,
            stdio: ['ignore', 'pipe', 'pipe'],
        });
    } catch (e) {
        const out = `${e.stdout ?? ''}${e.stderr ?? ''}`;
        throw new Error(`npm consumer: \`${program} ${args.join(' ')}\` failed in ${where}:\n${out || e.message}`);
    }
}

const work = mkdtempSync(join(tmpdir(), 'npm-consumer-'));
try {
    const tarballs = [];
    for (const pkg of PACKAGES) {
        const dir = join(ROOT, pkg);
        const bin = (name) => join(ROOT, 'node_modules', '.bin', name);
        if (!existsSync(bin('tsc'))) {
            throw new Error('npm consumer: the repository has no node_modules; run `npm ci` at its root first');
        }
        // As from a clean checkout: dist/ is ignored by git, so prepare must build it.
        rmSync(join(dir, 'dist'), { recursive: true, force: true });
        const [packed] = JSON.parse(run(dir, NPM, ['pack', '--json', '--pack-destination', work], 300_000));
        const files = new Set(packed.files.map((f) => f.path));
        for (const want of ['package.json', 'README.md', 'schema.json', 'dist/src/index.js', 'dist/src/index.d.ts', 'src/index.ts']) {
            if (!files.has(want)) throw new Error(`npm consumer: ${packed.filename} lacks ${want}`);
        }
        if (pkg.startsWith('bindings/')) {
            for (const want of ['LICENSE-MIT', 'LICENSE-APACHE']) {
                if (!files.has(want)) throw new Error(`npm consumer: ${packed.filename} lacks ${want}`);
            }
        }
        const tests = [...files].filter((f) => f.startsWith('dist/test/') || f.startsWith('test/'));
        if (tests.length > 0) throw new Error(`npm consumer: ${packed.filename} ships its tests: ${tests.join(', ')}`);
        const tarball = join(work, packed.filename);
        run(dir, bin('publint'), ['run', '--strict', tarball]);
        run(dir, bin('attw'), [tarball, '--profile', 'esm-only']);
        tarballs.push(tarball);
    }

    const consumer = join(work, 'consumer');
    for (const f of ['package.json', 'package-lock.json', 'tsconfig.nodenext.json', 'tsconfig.bundler.json', 'src']) {
        cpSync(join(HERE, f), join(consumer, f), { recursive: true });
    }
    run(consumer, NPM, ['ci', '--no-audit', '--no-fund', '--prefer-offline'], 300_000);
    run(consumer, NPM, ['install', '--no-save', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs], 300_000);
    // One zod, the consumer's: no package brought a copy of its own.
    const nested = [];
    for (const scope of ['@adecore']) {
        for (const name of readdirSync(join(consumer, 'node_modules', scope))) {
            if (existsSync(join(consumer, 'node_modules', scope, name, 'node_modules', 'zod'))) nested.push(`${scope}/${name}`);
        }
    }
    if (nested.length > 0) throw new Error(`npm consumer: a second zod under ${nested.join(', ')}`);
    // One runtime: the agent package, once, at the top; no package brought a copy of it or of
    // its runtime files (`src/main.ts` checks the functions are the same objects).
    for (const name of readdirSync(join(consumer, 'node_modules', '@adecore'))) {
        const dir = join(consumer, 'node_modules', '@adecore', name);
        if (existsSync(join(dir, 'node_modules', '@adecore', 'agent-contracts'))) {
            throw new Error(`npm consumer: a second @adecore/agent-contracts under @adecore/${name}`);
        }
        if (name !== 'agent-contracts') {
            for (const copy of ['dist/src/parse.js', 'dist/src/limits.js', 'dist/src/runtime']) {
                if (existsSync(join(dir, copy))) throw new Error(`npm consumer: @adecore/${name} ships ${copy}, a copy of the runtime`);
            }
        }
    }
    if (!existsSync(join(consumer, 'node_modules', '@adecore', 'agent-contracts', 'dist', 'src', 'runtime', 'index.js'))) {
        throw new Error('npm consumer: @adecore/agent-contracts ships no dist/src/runtime/index.js');
    }

    const tsc = join(consumer, 'node_modules', '.bin', 'tsc');
    run(consumer, tsc, ['--strict', '-p', 'tsconfig.bundler.json']);
    run(consumer, tsc, ['--strict', '-p', 'tsconfig.nodenext.json']);
    process.stdout.write(run(consumer, process.execPath, ['dist/main.js'], 60_000));
} finally {
    if (process.env.KEEP_NPM_CONSUMER) {
        console.log(`npm consumer: kept ${work}`);
    } else {
        rmSync(work, { recursive: true, force: true });
    }
}
