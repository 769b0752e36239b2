// The built reference site, opened in a real headless Chromium (Debian's /usr/bin/chromium)
// through playwright-core: every page renders, every diagram draws, every link resolves, and
// one page is saved as a screenshot. `cargo xtask site` builds the site and runs this with:
//
//   SITE_BOOK        the built book (target/site/book)
//   SITE_EXPECT      JSON: { pages: { "agent.html": <diagrams on it>, ... }, screenshot: "agent.html#flow-x" }
//   SITE_SCREENSHOT  where the screenshot goes (target/site/screenshot.png)
//   CHROMIUM         the browser (/usr/bin/chromium)
//
// The pages are served over HTTP from 127.0.0.1 on a port of the system's choosing, and the
// browser reaches nothing else: every request to another origin fails the test.

import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { chromium } from 'playwright-core';

const BOOK = process.env.SITE_BOOK;
const EXPECT = JSON.parse(process.env.SITE_EXPECT ?? '{}');
const SCREENSHOT = process.env.SITE_SCREENSHOT;
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
assert.ok(BOOK, 'SITE_BOOK is not set: run cargo xtask site');
assert.ok(EXPECT.pages && Object.keys(EXPECT.pages).length > 0, 'SITE_EXPECT names no page');

const TYPES = {
    '.html': 'text/html; charset=utf-8',
    '.js': 'text/javascript',
    '.css': 'text/css',
    '.svg': 'image/svg+xml',
    '.json': 'application/json',
    '.png': 'image/png',
    '.woff2': 'font/woff2',
    '.woff': 'font/woff',
    '.ttf': 'font/ttf',
};

/** The file a URL path names in the book, or null. */
function fileOf(path) {
    const rel = normalize(decodeURIComponent(path)).replace(/^(\.\.[/\\])+/, '');
    let file = join(BOOK, rel);
    try {
        if (statSync(file).isDirectory()) file = join(file, 'index.html');
        statSync(file);
        return file;
    } catch {
        return null;
    }
}

let server;
let origin;
let context;
let userDataDir;

before(async () => {
    server = createServer((req, res) => {
        const url = new URL(req.url, 'http://localhost');
        const file = fileOf(url.pathname);
        if (file === null) {
            res.writeHead(404).end('not found');
            return;
        }
        res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
        res.end(readFileSync(file));
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${server.address().port}`;
    userDataDir = mkdtempSync(join(tmpdir(), 'site-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
        executablePath: CHROMIUM,
        headless: true,
        timeout: 60_000,
        args: [
            '--headless',
            '--no-sandbox',
            '--disable-gpu',
            '--disable-quic',
            '--no-first-run',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
        ],
        viewport: { width: 1280, height: 900 },
    });
    // Nothing but the site: a request elsewhere (a CDN) is refused and reported.
    context.outside = [];
    await context.route('**/*', (route) => {
        const u = route.request().url();
        if (u.startsWith(origin) || u.startsWith('data:') || u.startsWith('blob:')) return route.continue();
        context.outside.push(u);
        return route.abort();
    });
});

after(async () => {
    await context?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

/** Opens a page, waits for its diagrams, and answers what it shows. */
async function open(path) {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    page.on('console', (m) => {
        if (m.type() === 'error') errors.push(`console: ${m.text()}`);
    });
    const response = await page.goto(`${origin}/${path}`, { waitUntil: 'load', timeout: 60_000 });
    assert.equal(response?.status(), 200, `${path}: HTTP ${response?.status()}`);
    // Every diagram drawn: each <pre class="mermaid"> holds an SVG with the flow's participants.
    await page.waitForFunction(
        () => [...document.querySelectorAll('pre.mermaid')].every((p) => p.querySelector('svg') !== null),
        null,
        { timeout: 60_000 },
    );
    return { page, errors };
}

/** The ids a page of the book holds, by its path, read once. */
const ids = new Map();
function idsOf(path) {
    if (!ids.has(path)) {
        const file = fileOf(path);
        const set = new Set();
        if (file !== null) for (const m of readFileSync(file, 'utf8').matchAll(/\sid="([^"]+)"/g)) set.add(m[1]);
        ids.set(path, file === null ? null : set);
    }
    return ids.get(path);
}

for (const [path, diagrams] of Object.entries(EXPECT.pages)) {
    test(`${path}: renders, draws its ${diagrams} diagrams, every link resolves`, async () => {
        const { page, errors } = await open(path);
        const shown = await page.evaluate(() => ({
            h1: document.querySelector('main h1')?.textContent ?? '',
            text: document.querySelector('main')?.innerText.length ?? 0,
            drawn: [...document.querySelectorAll('pre.mermaid svg')].map((svg) => ({
                text: svg.textContent ?? '',
                width: svg.getBoundingClientRect().width,
            })),
            undrawn: document.querySelectorAll('code.language-mermaid').length,
            links: [...document.querySelectorAll('main a[href]')].map((a) => a.href),
        }));
        assert.notEqual(shown.h1.trim(), '', `${path}: no heading`);
        assert.ok(shown.text > 200, `${path}: the page is nearly empty (${shown.text} characters)`);
        assert.equal(shown.undrawn, 0, `${path}: a mermaid block was not turned into a diagram`);
        assert.equal(shown.drawn.length, diagrams, `${path}: ${shown.drawn.length} diagrams drawn`);
        for (const d of shown.drawn) {
            assert.ok(d.text.includes('Client'), `${path}: a diagram without its participants: ${d.text.slice(0, 80)}`);
            assert.ok(d.width > 100, `${path}: a diagram ${d.width}px wide`);
        }
        const broken = [];
        for (const href of shown.links) {
            const u = new URL(href);
            if (u.origin !== origin) {
                broken.push(`${href} (outside the site)`);
                continue;
            }
            const target = u.pathname.replace(/^\//, '') || 'index.html';
            const found = idsOf(target);
            if (found === null) broken.push(`${href} (no page ${target})`);
            else if (u.hash !== '' && !found.has(decodeURIComponent(u.hash.slice(1)))) broken.push(`${href} (no anchor on ${target})`);
        }
        assert.ok(shown.links.length > 0, `${path}: no links`);
        assert.deepEqual(broken, [], `${path}: ${broken.length} of ${shown.links.length} links do not resolve`);
        assert.deepEqual(errors, [], `${path}: errors while rendering`);
        assert.deepEqual(context.outside, [], 'requests outside the site');
        await page.close();
    });
}

test('a screenshot of one page, its diagram drawn', { skip: SCREENSHOT === undefined }, async () => {
    const where = EXPECT.screenshot ?? Object.keys(EXPECT.pages)[0];
    const { page } = await open(where);
    const [path, hash] = where.split('#');
    if (hash) await page.locator(`[id="${hash}"]`).scrollIntoViewIfNeeded();
    await page.screenshot({ path: SCREENSHOT });
    assert.ok(statSync(SCREENSHOT).size > 10_000, `${SCREENSHOT} is nearly empty`);
    await page.close();
    assert.ok(path.endsWith('.html'));
});
