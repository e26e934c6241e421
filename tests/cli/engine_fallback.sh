#!/usr/bin/env bash
#
# engine_fallback.sh: where the kernel refuses io_uring (as Raspberry Pi OS
# kernels built without it, or with kernel.io_uring_disabled, do) `storbench
# run` uses libaio, and where it refuses libaio too, psync at queue depth 1;
# it says so on stderr (with the probe's reason) and in the summary's header,
# and keeps it with the run. `--engine io_uring` there is one clear error.
# The probes are made to fail for real: nosyscall installs a seccomp filter
# that answers io_uring_setup with EPERM (kernel.io_uring_disabled=2) and
# io_setup with ENOSYS (a kernel without CONFIG_AIO).
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"

[[ -n ${SB_NOSYSCALL:-} && -x ${SB_NOSYSCALL:-} ]] ||
    sb_fail "SB_NOSYSCALL is not set to the nosyscall helper (run through meson test)"
sb_require_python

sb_tmpdir T
mkdir "$T/d" "$T/out"
cd "$T/d" || sb_fail "cd $T/d"

rc=0
"$SB_NOSYSCALL" io_uring_setup=EPERM -- true 2>"$T/out/probe.stderr" || rc=$?
[[ $rc -ne 77 ]] || sb_skip "$(cat "$T/out/probe.stderr")"
[[ $rc -eq 0 ]] || sb_fail "nosyscall does not work: $(cat "$T/out/probe.stderr")"

failed=0
bad() {
    echo "not ok - $*"
    failed=$((failed + 1))
}

# run_with NAME CALL=ERRNO...: storbench run (small and short) under the
# filter; output in $T/out/NAME.*, exit status in SB_RC.
run_with() {
    local name=$1
    shift
    SB_RC=0
    "$SB_NOSYSCALL" "$@" -- "$STORBENCH" run --time 0.1s --size 16m --no-save \
        >"$T/out/$name.stdout" 2>"$T/out/$name.stderr" </dev/null || SB_RC=$?
    if [[ $SB_RC -ne 0 ]]; then
        sb_show "$T/out/$name.stderr" stderr
        sb_fail "storbench run with $*: exit status $SB_RC"
    fi
}
header() { grep -E '^\. \(' "$T/out/$1.stdout"; }

# Which engine works here without a filter: the test needs io_uring for the
# first case and libaio for the second.
sb_run "$T/out/plain" run --time 0.1s --size 16m --no-save
[[ $SB_RC -eq 0 ]] || sb_fail "storbench run: exit status $SB_RC: $(cat "$T/out/plain.stderr")"
plain=$(header plain)
sb_note "no filter:           $plain"
if [[ $plain != *", direct I/O, io_uring, "* ]]; then
    sb_skip "io_uring does not work here even without a filter ($plain): nothing to fall back from"
fi

# 1. io_uring refused: libaio, when it was built and works.
run_with uring io_uring_setup=EPERM
h=$(header uring)
sb_note "io_uring refused:    $h"
if [[ $h == *", direct I/O, libaio (io_uring unavailable), "* ]]; then
    grep -q 'the kernel refuses io_uring.*: the queued tests use libaio$' "$T/out/uring.stderr" ||
        bad "stderr does not say why io_uring was passed over: $(cat "$T/out/uring.stderr")"
elif [[ $h == *", direct I/O, psync (io_uring, libaio unavailable), "* ]]; then
    sb_note "(libaio does not work here either: the libaio case is the next one's)"
else
    bad "the header does not name the fallback engine: $h"
fi

# 2. io_uring and libaio refused: psync at queue depth 1.
run_with both io_uring_setup=EPERM io_setup=ENOSYS
h=$(header both)
sb_note "both refused:        $h"
[[ $h == *", direct I/O, psync (io_uring, libaio unavailable), "* ]] ||
    bad "the header does not say psync and why: $h"
grep -q 'no asynchronous engine works here, so the Q8 and Q32 tests run with psync at queue depth 1$' \
    "$T/out/both.stderr" || bad "stderr does not say the queued tests ran at depth 1: $(cat "$T/out/both.stderr")"
grep -q 'io_uring' "$T/out/both.stderr" && grep -q 'libaio' "$T/out/both.stderr" ||
    bad "stderr does not give both probes' reasons"
# The results say it too (JSON: every test's parameters).
SB_RC=0
"$SB_NOSYSCALL" io_uring_setup=EPERM io_setup=ENOSYS -- "$STORBENCH" run -q --time 0.1s \
    --size 16m --no-save --format json >"$T/out/both.json" 2>&1 </dev/null || SB_RC=$?
[[ $SB_RC -eq 0 ]] || bad "run --format json under the filter: exit status $SB_RC"
python3 - "$T/out/both.json" <<'EOF' || bad "the JSON does not record the fallback"
import json, sys
run = json.load(open(sys.argv[1]))
tests = [t for tg in run["targets"] for t in tg["tests"]]
assert tests, "no tests"
for t in tests:
    p = t["params"]
    assert p.get("ioengine") == "psync", p
    assert p.get("engine_fallback") == "io_uring, libaio unavailable", p
EOF

# 3. An engine asked for by name that does not work: one line, exit 1,
#    nothing left behind.
SB_RC=0
"$SB_NOSYSCALL" io_uring_setup=EPERM -- "$STORBENCH" run --time 0.1s --size 16m --no-save \
    --engine io_uring >"$T/out/asked.stdout" 2>"$T/out/asked.stderr" </dev/null || SB_RC=$?
[[ $SB_RC -eq 1 ]] || bad "run --engine io_uring, refused: exit status $SB_RC, expected 1"
[[ $(wc -l <"$T/out/asked.stderr") -eq 1 ]] &&
    grep -q '^storbench: .*io_uring.*Operation not permitted' "$T/out/asked.stderr" ||
    bad "run --engine io_uring, refused: not one line naming io_uring: $(cat "$T/out/asked.stderr")"

sb_no_test_files "$T/d"
[[ $failed -eq 0 ]] || sb_fail "$failed check(s) failed"
echo "ok - io_uring refused: libaio; both refused: psync at depth 1; said on stderr, in the header and the results"
