#!/usr/bin/env bash
#
# sigint.sh: a sweep stopped by SIGINT or SIGTERM while it measures ends
# promptly with exit status 128 + the signal (130 for SIGINT, 143 for
# SIGTERM, as a shell reports it), says "interrupted" on stderr and removes
# its test file.
#
# The sweep is set up to run for minutes (30 s minimum per point); the test
# waits for its test file to appear, so the signal lands while the sweep
# holds a file, sends the signal, and gives the program 10 s to stop. A third
# sweep waits 60 s before its first point (--pause) and is signalled during
# that wait: the pause must not delay the stop either.
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"

sb_tmpdir T
mkdir "$T/out"

pid=
sb_at_exit '[[ -n $pid ]] && kill -KILL "$pid" 2>/dev/null; true'

# interrupt NAME SIG [SWEEP_OPTION...]: one sweep, stopped by SIG.
interrupt() {
    local name=$1 sig=$2 dir=$T/$1 out=$T/out/$1 i rc
    shift 2
    mkdir "$dir"
    "$STORBENCH" sweep -q --min-time 30s --max-time 60s --file-size 16m --bs 4k "$@" "$dir" \
        >"$out.stdout" 2>"$out.stderr" </dev/null &
    pid=$!

    # Wait (up to 10 s) for the test file.
    for ((i = 0; i < 200; i++)); do
        compgen -G "$dir/storbench-*.tmp" >/dev/null && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    if ! compgen -G "$dir/storbench-*.tmp" >/dev/null; then
        sb_show "$out.stderr" stderr
        sb_fail "$name: no storbench-*.tmp appeared in $dir within 10 s"
    fi
    # With a long pause, let the 16 MiB layout finish so the signal lands in
    # the pause: wait (up to 20 s more) for the file to hold its 16 MiB, not a
    # fixed time, which under qemu on a busy machine may end inside the
    # layout; then half a second for its last sync.
    if [[ $# -gt 0 ]]; then
        local f size=0
        for ((i = 0; i < 400 && size < 16777216; i++)); do
            f=$(compgen -G "$dir/storbench-*.tmp") && size=$(stat -c %s "$f" 2>/dev/null || echo 0)
            ((size < 16777216)) && sleep 0.05
        done
        ((size >= 16777216)) || sb_fail "$name: the test file did not reach 16 MiB within 20 s"
        sleep 0.5
    fi

    kill -s "$sig" "$pid"
    # Give it 10 s to stop.
    for ((i = 0; i < 200; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    if kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid"
        wait "$pid" 2>/dev/null
        pid=
        sb_fail "$name: storbench was still running 10 s after the signal"
    fi
    rc=0
    wait "$pid" || rc=$?
    pid=

    local why=()
    local want=130
    [[ $sig == TERM ]] && want=143
    [[ $rc -eq $want ]] || why+=("exit status $rc, expected $want")
    grep -qi 'interrupted' "$out.stderr" || why+=("no line on stderr says 'interrupted'")
    grep -q '^storbench: ' "$out.stderr" || why+=("no 'storbench: ' line on stderr")
    local left
    left=$(find "$dir" -name 'storbench-*.tmp')
    [[ -z $left ]] || why+=("test file left behind: $left")
    if [[ ${#why[@]} -ne 0 ]]; then
        echo "not ok - $name: ${why[*]}"
        sb_show "$out.stdout" stdout
        sb_show "$out.stderr" stderr
        return 1
    fi
    echo "ok - $name: exit $want, 'interrupted' on stderr, test file removed"
}

failed=0
interrupt INT INT || failed=$((failed + 1))
interrupt TERM TERM || failed=$((failed + 1))
interrupt pause INT --pause 60s || failed=$((failed + 1))
[[ $failed -eq 0 ]] || sb_fail "$failed of 3 signals mishandled"
