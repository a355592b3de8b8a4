# Shared by benches/*.sh (sourced right after `set -euo pipefail`): where the repository is,
# messages, installing the measuring tools, and the release build every benchmark measures.

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

say() { printf 'bench: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }
# Quote one word for hyperfine's `-N` command splitting (POSIX shell words).
q() { printf '%q' "$1"; }

# need COMMAND [DEBIAN-PACKAGE]: installs the package with apt-get when COMMAND is missing (as
# root), else stops with the command to run.
need() {
    local command=$1 package=${2:-$1}
    command -v "$command" >/dev/null && return 0
    [ "$(id -u)" = 0 ] || die "$command is missing; install it (apt-get install -y $package) or run as root"
    say "installing $package with apt-get"
    apt-get install -y "$package" >/dev/null 2>&1 ||
        { apt-get update >/dev/null && apt-get install -y "$package" >/dev/null; }
    command -v "$command" >/dev/null || die "$command is still missing after installing $package"
}

# build_finch: `cargo build --release`; sets $finch to the binary.
build_finch() {
    say "cargo build --release"
    (cd "$repo" && cargo build --release --quiet)
    finch="$repo/target/release/finch"
    [ -x "$finch" ] || die "no $finch after the build"
}
