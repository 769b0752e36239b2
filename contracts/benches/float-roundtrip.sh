#!/usr/bin/env bash
# What serde_json's `float_roundtrip` feature costs the frame benchmark. The workspace turns it
# on so numbers are read as JSON.parse reads them (docs/wire-semantics.md); Cargo cannot turn a
# feature off for one build, so the bench is built twice: from this checkout, and from a copy
# of HEAD's tree whose Cargo.toml drops the feature (same target directory, its own
# artifacts). Then both run in turns in one session (with, without; without, with; ...), and
# each line's ratio of frames per second, with / without, is the median over the rounds. On a
# shared machine those times move with the load; when valgrind is installed, each line's
# instructions per pass over its frames are counted too (callgrind at 10 and 110 passes, the
# difference over 100; `FRAMES_PASSES` in frames.rs), which the load does not move.
# Hand-written, not generated. From the repository root:
#
#   bash contracts/benches/float-roundtrip.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds="${1:-3}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The frames bench's executable, built in the workspace at $1.
bench_exe() {
    (cd "$1" && cargo bench -q -p adecore-contracts --bench frames --no-run --message-format=json) |
        node -e '
            let exe = "";
            for (const l of require("node:fs").readFileSync(0, "utf8").split("\n")) {
                if (!l.startsWith("{")) continue;
                const m = JSON.parse(l);
                if (m.reason === "compiler-artifact" && m.target.name === "frames" && m.executable) exe = m.executable;
            }
            if (!exe) process.exit(1);
            console.log(exe);'
}

mkdir "$tmp/src"
git archive HEAD | tar -x -C "$tmp/src"
sed -i 's/"raw_value", "float_roundtrip"/"raw_value"/' "$tmp/src/Cargo.toml"
if grep -q float_roundtrip "$tmp/src/Cargo.toml"; then
    echo "float-roundtrip.sh: Cargo.toml's serde_json line changed; the feature is still on in the copy" >&2
    exit 1
fi
echo "building the bench with float_roundtrip" >&2
cp "$(bench_exe .)" "$tmp/with"
echo "building the bench without float_roundtrip" >&2
cp "$(bench_exe "$tmp/src")" "$tmp/without"

for i in $(seq 1 "$rounds"); do
    order="with without"
    [ $((i % 2)) -eq 0 ] && order="without with"
    for build in $order; do
        echo "round $i/$rounds: $build" >&2
        # The stored frames are read from the checkout each build was made from.
        dir=.
        [ "$build" = without ] && dir="$tmp/src"
        (cd "$dir/contracts" && CRITERION_HOME="$tmp/criterion.$build.$i" "$tmp/$build" --bench --noplot >/dev/null 2>&1)
    done
done

if command -v valgrind >/dev/null; then
    echo "counting instructions" >&2
    for build in with without; do
        dir=.
        [ "$build" = without ] && dir="$tmp/src"
        for line in requests/generated requests/generated-owned requests/handwritten server/generated server/generated-owned server/handwritten replies/generated replies/handwritten; do
            for n in 10 110; do
                ir=$(cd "$dir/contracts" && FRAMES_PASSES=$n FRAMES_LINE=$line valgrind --tool=callgrind --callgrind-out-file=/dev/null "$tmp/$build" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p' | sort -n | tail -1)
                echo "$build $line $n $ir" >>"$tmp/instructions"
            done
        done
    done
fi

node - "$tmp" "$rounds" <<'EOF'
const fs = require('node:fs');
const path = require('node:path');
const [dir, rounds] = [process.argv[2], Number(process.argv[3])];
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
// Every line of every group: `<group>/<line>/new/estimates.json` under criterion's home.
const lines = (home) => {
    const out = [];
    for (const g of fs.readdirSync(home).filter((g) => g !== 'report')) {
        for (const l of fs.readdirSync(path.join(home, g)).filter((l) => l !== 'report')) {
            const f = path.join(home, g, l, 'new', 'estimates.json');
            if (fs.existsSync(f)) out.push([`${g}/${l}`, JSON.parse(fs.readFileSync(f)).median.point_estimate]);
        }
    }
    return out;
};
const ratios = new Map();
for (let i = 1; i <= rounds; i++) {
    const without = new Map(lines(path.join(dir, `criterion.without.${i}`)));
    for (const [name, t] of lines(path.join(dir, `criterion.with.${i}`))) {
        // Frames per second with / without: the inverse of the times' ratio.
        if (without.has(name)) ratios.set(name, [...(ratios.get(name) ?? []), without.get(name) / t]);
    }
}
console.log('frames per second, with float_roundtrip / without (below 1: the feature costs):');
for (const [name, xs] of [...ratios].sort()) {
    console.log(`  ${name.padEnd(32)} ${median(xs).toFixed(3)}x  (${xs.map((x) => x.toFixed(3)).join(' ')})`);
}
console.log(`(median over ${rounds} rounds; each round runs both builds, in alternating order)`);
const counts = path.join(dir, 'instructions');
if (fs.existsSync(counts)) {
    const ir = new Map();
    for (const l of fs.readFileSync(counts, 'utf8').split('\n').filter(Boolean)) {
        const [build, line, n, count] = l.split(' ');
        ir.set(`${build} ${line} ${n}`, Number(count));
    }
    const pass = (build, line) => (ir.get(`${build} ${line} 110`) - ir.get(`${build} ${line} 10`)) / 100;
    console.log('instructions per pass over the frames (callgrind), with / without:');
    for (const line of [...new Set([...ir.keys()].map((k) => k.split(' ')[1]))].sort()) {
        const [w, wo] = [pass('with', line), pass('without', line)];
        console.log(`  ${line.padEnd(32)} ${(w / 1000).toFixed(1)}k / ${(wo / 1000).toFixed(1)}k = ${(w / wo).toFixed(3)}x`);
    }
}
EOF
