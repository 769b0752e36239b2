// Writes tests/official/{mcp,acp}/examples.jsonl: the official examples, taken from a clone of
// each protocol's repository (tests/official/README.md says which commit):
//
//   node tests/official/extract-examples.mjs MCP_REPO ACP_REPO
//
// MCP_REPO is a git directory of modelcontextprotocol/modelcontextprotocol, ACP_REPO one of
// agentclientprotocol/agent-client-protocol; files are read at their HEAD with `git show`.
//
// - Every ```json block of the specification's pages that is a JSON-RPC message (an object
//   with `jsonrpc`): MCP's docs/specification/2025-11-25/, ACP's docs/protocol/v1/ (not its
//   draft/). A response answers the method of the latest request before it on the same page
//   with the same id (none found: its result is checked by the envelope alone). Blocks that
//   are not JSON (elided with `...`, commented) are left out and counted.
// - MCP: schema/2026-07-28/examples/<Def>/*.json, a later revision's examples (2025-11-25 has
//   none), kept only where the 2025-11-25 schema accepts them for that def: a message def as
//   it is; a params def (`CallToolRequestParams`) in a request or notification of its method;
//   a result def (`CallToolResult`) or `<X>ResultResponse` as the response to its method; an
//   error (`ParseError`, accepted as an `Error`) in an error response. Other defs (content
//   blocks, capabilities) are not messages and are left out.
//
// Lines: {"message", "answers"?, "source", "def"?}; `source` is the file and line (docs) or
// the file (examples) in its repository.

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { ajv2020 } from './ajv.mjs';
import { kindOf, loadProtocol, HERE } from './lib.mjs';

const [mcpRepo, acpRepo] = process.argv.slice(2);
if (mcpRepo === undefined || acpRepo === undefined) {
    console.error('usage: node tests/official/extract-examples.mjs MCP_REPO ACP_REPO');
    process.exit(2);
}

const git = (repo, ...args) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
const files = (repo, dir) => git(repo, 'ls-tree', '-r', '--name-only', 'HEAD', dir).split('\n').filter((f) => f !== '');
const show = (repo, path) => git(repo, 'show', `HEAD:${path}`);

/** The JSON-RPC messages of a page's ```json blocks, each with its line; and how many blocks
 * were left out as not JSON. */
function messagesOfPage(text) {
    const out = [];
    let skipped = 0;
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
        if (!/^\s*```json\b/.test(lines[i])) continue;
        const start = i + 1;
        let end = start;
        while (end < lines.length && !/^\s*```\s*$/.test(lines[end])) end++;
        const body = lines.slice(start, end).join('\n');
        i = end;
        if (!body.includes('"jsonrpc"')) continue;
        let value;
        try {
            value = JSON.parse(body);
        } catch {
            skipped++;
            continue;
        }
        for (const m of Array.isArray(value) ? value : [value]) out.push({ line: start, message: m });
    }
    return { out, skipped };
}

/** The lines of one repository's pages, responses tied to the request before them. */
function fromPages(repo, pages) {
    const lines = [];
    let skipped = 0;
    for (const page of pages) {
        const { out, skipped: s } = messagesOfPage(show(repo, page));
        skipped += s;
        const asked = new Map();
        for (const { line, message } of out) {
            const kind = kindOf(message);
            if (kind === 'request') asked.set(JSON.stringify(message.id), message.method);
            const l = { message };
            if (kind === 'result' || kind === 'error') {
                const answers = asked.get(JSON.stringify(message.id));
                if (answers !== undefined) l.answers = answers;
            }
            l.source = `${page}:${line}`;
            lines.push(l);
        }
    }
    return { lines, skipped };
}

function write(protocol, lines) {
    writeFileSync(new URL(`${protocol}/examples.jsonl`, HERE), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
}

const Ajv2020 = await ajv2020();

// MCP.
{
    const mcp = loadProtocol('mcp', Ajv2020);
    const pages = files(mcpRepo, 'docs/specification/2025-11-25').filter((f) => f.endsWith('.mdx'));
    const { lines, skipped } = fromPages(mcpRepo, pages);
    const fromDocs = lines.length;
    // Where a def of the later revision's examples lands in a message of 2025-11-25.
    const byParams = new Map();
    const byResult = new Map();
    for (const e of mcp.methods.values()) {
        if (e.paramsDef !== null) {
            byParams.set(e.paramsDef, e);
            for (const m of mcp.defs[e.paramsDef].anyOf ?? []) byParams.set(m.$ref.replace('#/$defs/', ''), e);
        }
        for (const r of e.resultDefs ?? []) if (!byResult.has(r)) byResult.set(r, e);
    }
    let kept = 0;
    let refused = 0;
    let notMessages = 0;
    let id = 1000;
    const examples = files(mcpRepo, 'schema/2026-07-28/examples').filter((f) => f.endsWith('.json'));
    for (const path of examples) {
        const def = path.split('/').at(-2);
        const value = JSON.parse(show(mcpRepo, path));
        let line;
        if (def in mcp.defs && mcp.defs[def].properties?.jsonrpc !== undefined) {
            line = { message: value };
        } else if (byParams.has(def)) {
            const e = byParams.get(def);
            line = { message: { jsonrpc: '2.0', ...(e.kind === 'request' ? { id: id++ } : {}), method: e.method, params: value } };
        } else if (byResult.has(def)) {
            line = { message: { jsonrpc: '2.0', id: id++, result: value }, answers: byResult.get(def).method };
        } else if (def.endsWith('ResultResponse') && byResult.has(def.replace(/Response$/, ''))) {
            line = { message: value, answers: byResult.get(def.replace(/Response$/, '')).method };
        } else if (def.endsWith('Error') && !(def in mcp.defs) && mcp.check('Error', value) === null) {
            line = { message: { jsonrpc: '2.0', id: id++, error: value } };
        } else {
            notMessages++;
            continue;
        }
        line.source = path;
        line.def = def;
        const verdict = mcp.verdict(line);
        if (!verdict.ok) {
            refused++;
            continue;
        }
        kept++;
        lines.push(line);
    }
    write('mcp', lines);
    console.error(
        `mcp: ${fromDocs} messages from ${pages.length} pages (${skipped} blocks not JSON); ` +
            `${examples.length} examples of 2026-07-28: ${kept} kept, ${refused} refused by 2025-11-25, ${notMessages} not messages`,
    );
}

// ACP.
{
    const pages = files(acpRepo, 'docs/protocol/v1').filter((f) => f.endsWith('.mdx') && !f.includes('/draft/'));
    const { lines, skipped } = fromPages(acpRepo, pages);
    write('acp', lines);
    console.error(`acp: ${lines.length} messages from ${pages.length} pages (${skipped} blocks not JSON)`);
}
