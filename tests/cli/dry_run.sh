#!/usr/bin/env bash
#
# dry_run.sh: `storbench run --dry-run` prints the test file size the run
# will use there, not the default: on a tmpfs of 40 MiB (less than the
# default 1 GiB) the dry run's --size is 3/4 of the free space, stderr says
# why, and the run that follows records that very size. Needs root for the
# tmpfs mount; skips otherwise.
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"
sb_require_bin
sb_require_python

[[ $EUID -eq 0 ]] || sb_skip "needs root to mount a small tmpfs (a directory with less free space than 1 GiB)"
sb_tmpdir T
export STORBENCH_DB=$T/db.sqlite
mkdir "$T/small"
mount -t tmpfs -o size=40m tmpfs "$T/small" 2>"$T/mount.err" ||
    sb_skip "cannot mount a tmpfs here: $(cat "$T/mount.err")"
sb_at_exit "umount $(printf %q "$T/small")"

sb_run "$T/dry" run --dry-run "$T/small"
[[ $SB_RC -eq 0 ]] || sb_fail "run --dry-run: exit status $SB_RC: $(cat "$T/dry.stderr")"
dry_size=$(grep -oE -- '--size=[0-9]+[mg]?' "$T/dry.stdout" | head -1)
[[ $dry_size == --size=30m ]] ||
    sb_fail "the dry run's size on a 40 MiB tmpfs is '$dry_size', expected --size=30m (3/4 of the free space)"
grep -qE "^storbench: '.*small': a test file of 30.0 MiB \(31457280 bytes\): the default 1.0 GiB does not fit in the 40.0 MiB free there" "$T/dry.stderr" ||
    sb_fail "the dry run does not say why the size is not the default: $(cat "$T/dry.stderr")"
# The layout's time limit (30 s by default) and the rate it cuts under: the
# 30 MiB file is at most 64 MiB, the least a cut leaves, so it is not said.
grep -q "the layout ends after" "$T/dry.stderr" &&
    sb_fail "the dry run of a 30 MiB file speaks of the layout's limit: $(cat "$T/dry.stderr")"
sb_run "$T/dryl" run --dry-run --layout-time 10s "$T/small"
grep -q "the layout ends after" "$T/dryl.stderr" &&
    sb_fail "the dry run of a 30 MiB file speaks of a 10 s limit: $(cat "$T/dryl.stderr")"
sb_run "$T/dryb" run --dry-run --size 1g --layout-time 10s "$T/small"
grep -q "'.*small': the layout ends after 10 s: a device writing under 102.4 MiB/s gets what it laid out by then (at least 64 MiB), and the tests use that" "$T/dryb.stderr" ||
    sb_fail "run --dry-run --size 1g --layout-time 10s does not give the layout's limit: $(cat "$T/dryb.stderr")"
sb_run "$T/dryn" run --dry-run --size 1g "$T/small"
grep -q "the layout ends after" "$T/dryn.stderr" &&
    sb_fail "a --size given is laid out in full, but the dry run gives a limit: $(cat "$T/dryn.stderr")"
# -q: the command line alone.
sb_run "$T/dryq" run --dry-run -q "$T/small"
[[ ! -s $T/dryq.stderr ]] || sb_fail "run --dry-run -q wrote on stderr: $(cat "$T/dryq.stderr")"

# The run itself, and the size it recorded.
sb_run "$T/run" run -q --time 0.1s "$T/small"
[[ $SB_RC -eq 0 ]] || sb_fail "run: exit status $SB_RC: $(cat "$T/run.stderr")"
sb_run "$T/show" results show 1 --format json
[[ $SB_RC -eq 0 ]] || sb_fail "results show 1: exit status $SB_RC: $(cat "$T/show.stderr")"
sizes=$(python3 -c '
import json, sys
run = json.load(open(sys.argv[1]))
print(" ".join(sorted({t["params"]["size"] for tg in run["targets"] for t in tg["tests"]})))
' "$T/show.stdout") || sb_fail "cannot read the saved run's JSON"
[[ $sizes == 31457280 ]] || sb_fail "the run recorded sizes '$sizes', the dry run said 31457280 bytes"

# A --size that does not fit is said before anything runs.
sb_run "$T/big" run --dry-run --size 64m "$T/small"
grep -q "does not fit in the 40.0 MiB free there: the run will fail" "$T/big.stderr" ||
    sb_fail "run --dry-run --size 64m on 40 MiB free does not warn: $(cat "$T/big.stderr")"
echo "ok - run --dry-run on a 40 MiB tmpfs: --size=30m, said why, and the run recorded 31457280 bytes"
