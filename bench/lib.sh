# shellcheck shell=bash
# bench/lib.sh: what the benches' headers share. Sourced, after
# tests/slow/lib.sh, by time_to_result.sh and overhead.sh.

# bench_built BINARY: what a header says about a storbench binary: the
# commit of the git work tree it is in and how many files there are
# uncommitted, and when it was built. bench/data is left out of the count:
# it holds the benches' own output, which a run writes as it goes.
bench_built() {
    local dir rev src
    dir=$(dirname -- "$1")
    if rev=$(git -C "$dir" rev-parse --short HEAD 2>/dev/null); then
        src="$rev, $(git -C "$dir" status --porcelain -- ':(top)' ':(top,exclude)bench/data' \
            2>/dev/null | grep -c . || true) uncommitted files outside bench/data"
    else
        src="not in a git work tree"
    fi
    echo "$1 ($src; binary built $(date -u -r "$1" '+%F %T') UTC)"
}
