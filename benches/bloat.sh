#!/usr/bin/env bash
# What takes the space in a finch binary, cargo-bloat style without rebuilding: the sections
# (`size -A`) and the code and data symbols (`nm --size-sort`, demangled) summed per crate —
# the first path segment of each Rust symbol (generic code counts for the crate whose path it
# carries, as in cargo-bloat), `[C/other]` for the rest.
#
#   benches/bloat.sh [FINCH] [TOP]    (default target/release/finch, the 25 largest crates)
#
# Needs binutils (nm, size) and a binary with its symbol table (strip none or debuginfo).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
finch=${1:-$repo/target/release/finch}
top=${2:-25}
[ -f "$finch" ] || die "no $finch"
nm -S --size-sort "$finch" >/dev/null 2>&1 || die "nm cannot read $finch"
[ -n "$(nm -S "$finch" 2>/dev/null | head -n 1)" ] || die "$finch has no symbol table (stripped)"

echo "## sections of $finch"
size -A "$finch" | awk 'NR > 2 && $2 > 100000 { printf "%-20s %8.2f MB\n", $1, $2 / 1e6 }'
echo
echo "## symbols per crate (text + data)"
nm -S --size-sort -C "$finch" | node -e '
    const top = Number(process.argv[1]);
    const sum = new Map();
    let total = 0;
    for (const line of require("fs").readFileSync(0, "utf8").split("\n")) {
        const m = line.match(/^[0-9a-f]+ ([0-9a-f]+) ([tTwWrRdDbB]) (.*)$/);
        if (!m) continue;
        const size = parseInt(m[1], 16);
        // <impl Trait for Type>, <Type as Trait>, &dyn …: the crate of the first path counts.
        const name = m[3].replace(/^([<&* ]|dyn |mut |const )+/, "");
        const path = name.match(/^([A-Za-z_][A-Za-z0-9_]*)::/);
        const crate = path ? path[1] : "[C/other]";
        sum.set(crate, (sum.get(crate) || 0) + size);
        total += size;
    }
    const mb = (n) => (n / 1e6).toFixed(2).padStart(8) + " MB";
    for (const [crate, size] of [...sum].sort((a, b) => b[1] - a[1]).slice(0, top))
        console.log(crate.padEnd(28) + mb(size) + (100 * size / total).toFixed(1).padStart(6) + "%");
    console.log("total".padEnd(28) + mb(total));' "$top"
