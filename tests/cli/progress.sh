#!/usr/bin/env bash
#
# progress.sh: the progress line on a terminal speaks the unit of the tables:
# MiB/s by default, MB/s with --si, for sweep and for job; zcav's time left
# is a clock (m:ss). tests/slow/progress.sh checks the line's truth on a
# throttled device. script(1) gives
# the commands a pseudo-terminal, since the line is drawn only on one.
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"

command -v script >/dev/null || sb_skip "script(1) is not installed (util-linux)"
sb_tmpdir T
mkdir "$T/work"

# on_tty NAME ARGS...: runs storbench ARGS on a pseudo-terminal; what the
# terminal showed goes to $T/NAME.tty.
on_tty() {
    local name=$1 cmd q
    shift
    printf -v q '%q ' "$STORBENCH" "$@"
    cmd=$q
    script -qec "$cmd" /dev/null >"$T/$name.tty" 2>&1 </dev/null ||
        { sb_show "$T/$name.tty" terminal; sb_fail "$name: storbench failed on a terminal"; }
}

# A point shows its rate from its second second on ("starting" before).
sweep=(sweep --no-save --min-time 1.6s --max-time 2s --file-size 4m --pause 0 --bs 64k --only write)
job=(job --no-save --name=p --rw=read --bs=64k --size=4m --runtime=1 --time_based
    "--directory=$T/work")

failed=0
# check NAME UNIT WRONG: the line shows "N UNIT" and never "N WRONG".
check() {
    local name=$1 unit=$2 wrong=$3
    if ! grep -Eq "[0-9] $unit " "$T/$name.tty" || grep -Eq "[0-9] $wrong " "$T/$name.tty"; then
        echo "not ok - $name: the progress line does not speak $unit only"
        sb_show "$T/$name.tty" terminal
        failed=$((failed + 1))
    else
        echo "ok - $name: progress in $unit"
    fi
}

on_tty sweep "${sweep[@]}" "$T/work"
check sweep 'MiB/s' 'MB/s'
on_tty sweep_si "${sweep[@]}" --si "$T/work"
check sweep_si 'MB/s' 'MiB/s'
on_tty job "${job[@]}"
check job 'MiB/s' 'MB/s'
on_tty job_si "${job[@]}" --si
check job_si 'MB/s' 'MiB/s'
# zcav's line: its time left as a clock, never "0 us" at the end.
head -c 8388608 /dev/zero >"$T/zcav.img"
on_tty zcav zcav --no-save -b 1 "$T/zcav.img"
if ! grep -Eq 'ETA [0-9]+:[0-9][0-9]' "$T/zcav.tty" || grep -Eq 'ETA [0-9.]+ (us|ms|s)' "$T/zcav.tty"; then
    echo "not ok - zcav: the ETA is not a clock"
    sb_show "$T/zcav.tty" terminal
    failed=$((failed + 1))
else
    echo "ok - zcav: the ETA is a clock"
fi
[[ $failed -eq 0 ]] || sb_fail "$failed progress lines wrong"
