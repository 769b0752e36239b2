#!/usr/bin/env bash
# The Rust and Zod benchmarks on the same frames (contracts/benches/data/*.jsonl), in one
# session, then the ratios. Hand-written, not generated. From the repository root:
#
#   bash bindings/agent-contracts/bench/run.sh [RUNS]
#
# Each run: the criterion bench (generated, its payload as a borrowed view; generated with the
# owned payload; hand-written serde_json), then the node bench
# (generated: the spec's two stages, the one-pass typed parse, and the generated schemas run by
# the hand-written path's code; hand-written Zod in the package's tables, the same path again
# as the A/A control, and the hand-written schemas alone in tables of the mix's size;
# JSON.parse alone, the floor under every Zod path; each path in node processes of its own).
# RUNS runs (default 3); the ratios are the median over them.
set -euo pipefail
cd "$(dirname "$0")/../../.."
runs="${1:-3}"
pkg=bindings/agent-contracts
[ -f "$pkg/dist/src/index.js" ] || (cd "$pkg" && npm run build >/dev/null)
out=$(mktemp -d)
for i in $(seq 1 "$runs"); do
    echo "run $i/$runs" >&2
    cargo bench -q -p adecore-contracts --bench frames >/dev/null 2>"$out/cargo.$i.err" || { cat "$out/cargo.$i.err" >&2; exit 1; }
    for g in requests server; do
        for p in generated generated-owned handwritten; do
            cp "target/criterion/$g/$p/new/estimates.json" "$out/rust.$i.$g.$p.json"
        done
    done
    node "$pkg/bench/frames.mjs" --json >"$out/node.$i.json"
done
node - "$out" "$runs" <<'EOF'
const fs = require('node:fs');
const [dir, runs] = [process.argv[2], Number(process.argv[3])];
const frames = (g) => fs.readFileSync(`contracts/benches/data/${g}.jsonl`, 'utf8').split('\n').filter(Boolean).length;
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const rows = [];
for (const g of ['requests', 'server']) {
    const r = { group: g, genOverHand: [], ownedOverHand: [], zodGenOverHand: [], zodTypedOverHand: [], zodSchemasOverHand: [], rustGenOverZodGen: [], rustGenOverZodTyped: [], rustOwnedOverZodGen: [], rustOwnedOverZodTyped: [], rustHandOverZodHand: [], zodAgainOverHand: [], zodAloneOverHand: [], rustGenOverJson: [] };
    for (let i = 1; i <= runs; i++) {
        // criterion: the median time of one iteration (the whole mix), in nanoseconds.
        const rust = (p) => frames(g) / (JSON.parse(fs.readFileSync(`${dir}/rust.${i}.${g}.${p}.json`)).median.point_estimate / 1e9);
        const zod = JSON.parse(fs.readFileSync(`${dir}/node.${i}.json`)).framesPerSecond;
        const [rg, ro, rh, zg, zt, zh] = [rust('generated'), rust('generated-owned'), rust('handwritten'), zod[`${g}/generated`], zod[`${g}/generated-typed`], zod[`${g}/handwritten`]];
        r.genOverHand.push(rg / rh);
        r.ownedOverHand.push(ro / rh);
        r.rustOwnedOverZodGen.push(ro / zg);
        r.rustOwnedOverZodTyped.push(ro / zt);
        r.zodGenOverHand.push(zg / zh);
        r.zodTypedOverHand.push(zt / zh);
        r.zodSchemasOverHand.push(zod[`${g}/generated-schemas`] / zh);
        r.rustGenOverZodGen.push(rg / zg);
        r.rustGenOverZodTyped.push(rg / zt);
        r.rustHandOverZodHand.push(rh / zh);
        r.zodAgainOverHand.push(zod[`${g}/handwritten-again`] / zh);
        r.zodAloneOverHand.push(zod[`${g}/handwritten-alone`] / zh);
        r.rustGenOverJson.push(rg / zod[`${g}/json-parse`]);
    }
    rows.push(r);
}
const f = (xs) => `${median(xs).toFixed(2)}x`.padStart(7) + `  (${xs.map((x) => x.toFixed(2)).join(' ')})`;
for (const r of rows) {
    console.log(`${r.group}:`);
    console.log(`  Rust generated / Rust hand-written serde_json ${f(r.genOverHand)}  (the payload a borrowed view)`);
    console.log(`  Rust owned / Rust hand-written serde_json     ${f(r.ownedOverHand)}  (the payload owned)`);
    console.log(`  Zod generated, two stages / Zod hand-written  ${f(r.zodGenOverHand)}`);
    console.log(`  Zod generated, one pass / Zod hand-written    ${f(r.zodTypedOverHand)}`);
    console.log(`  Zod generated schemas / Zod hand-written      ${f(r.zodSchemasOverHand)}  (the hand-written path's code)`);
    console.log(`  Zod hand-written again / Zod hand-written     ${f(r.zodAgainOverHand)}  (A/A control: the same path)`);
    console.log(`  Zod hand-written alone / Zod hand-written     ${f(r.zodAloneOverHand)}  (the mix's tables only, no package)`);
    console.log(`  Rust generated / Zod generated, two stages    ${f(r.rustGenOverZodGen)}`);
    console.log(`  Rust generated / Zod generated, one pass      ${f(r.rustGenOverZodTyped)}`);
    console.log(`  Rust owned / Zod generated, two stages        ${f(r.rustOwnedOverZodGen)}`);
    console.log(`  Rust owned / Zod generated, one pass          ${f(r.rustOwnedOverZodTyped)}`);
    console.log(`  Rust hand-written / Zod hand-written          ${f(r.rustHandOverZodHand)}`);
    console.log(`  Rust generated / JSON.parse alone (no schema) ${f(r.rustGenOverJson)}`);
}
console.log(`(median over ${runs} runs; each run measures its lines side by side)`);
EOF
rm -rf "$out"
