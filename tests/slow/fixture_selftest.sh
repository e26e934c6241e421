#!/usr/bin/env bash
# tests/slow/fixture_selftest.sh: tests tests/slow/lib.sh, the fixtures of the
# slow tests.
#  1. A throttled loop device delivers its limits: dd writes 16 MiB at 8 MiB/s
#     and reads it back at 16 MiB/s, each within 5%, and the data reads back
#     correct.
#  2. A child test that is interrupted mid-write undoes all it set up (loop
#     device, mount, throttle rules, files, a directory in /dev/shm, a
#     process started with sb_background, a swap area of sb_swap_create
#     where the kernel allows one, a kernel setting of sb_sysctl, the loop
#     device's read-ahead of sb_readahead). Three
#     ways: SIGTERM to the shell (trap), SIGTERM then SIGKILL to its process
#     group as meson does on a timeout, and SIGKILL (both left to the
#     guardian).
#  3. After its own sb_cleanup nothing of this test remains.
# Needs root, loop devices and cgroup blkio throttling; skips (77) without.
#
# Internal: `fixture_selftest.sh --child DIR` is the child test of step 2.
set -euo pipefail

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$here/lib.sh"

# Where throttle rules can be: the v1 blkio throttle files, and io.max files
# below the cgroup v2 mount if it has the io controller.
V1=$(awk '$3 == "cgroup" && ("," $4 ",") ~ /,blkio,/ { print $2; exit }' /proc/mounts)
THROTTLE_FILES=()
[[ -n $V1 ]] && THROTTLE_FILES=("$V1"/blkio.throttle.{read,write}_{bps,iops}_device)
V2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [[ -z $V2 ]] || ! grep -qw io "$V2/cgroup.controllers" 2>/dev/null; then
    V2=
fi

# dd_rate FILE VAR: set VAR to the MiB/s of dd's summary line in FILE (bytes
# and seconds as dd prints them, so dd's own rounding to MB/s plays no part).
dd_rate() {
    local line bytes secs
    line=$(grep -E '^[0-9]+ bytes .* copied, ' "$1" | tail -n 1) ||
        sb_fail "no dd summary line in $1: $(cat "$1")"
    bytes=${line%% *}
    secs=$(sed -E 's/.* copied, ([0-9.eE+-]+) s,.*/\1/' <<<"$line")
    [[ $secs =~ ^[0-9.eE+-]+$ ]] || sb_fail "cannot parse dd's time in: $line"
    printf -v "$2" '%s' "$(awk -v b="$bytes" -v s="$secs" 'BEGIN { printf "%.3f", b / s / 1048576 }')"
    echo "  dd: $bytes bytes in $secs s"
}

# rules_for MAJ:MIN: print the throttle rules for MAJ:MIN in all throttle
# files (v1), or in every io.max (v2).
rules_for() {
    local f
    for f in "${THROTTLE_FILES[@]}"; do
        if [[ -r $f ]]; then grep -H "^$1 " "$f" || true; fi
    done
    if [[ -n $V2 ]]; then
        find "$V2" -name io.max -exec grep -H "^$1 .*=[0-9]" {} + 2>/dev/null
    fi
    return 0
}

# leftovers BACKING MOUNTPOINT MAJ:MIN [SHMDIR PID START [SWAPDEV SWAPBACKING
# SWAPPINESS [DEV READ_AHEAD_KB]]]: print what is left of a fixture.
leftovers() {
    local back=$1 mnt=$2 mm=$3 shm=${4:-} pid=${5:-} start=${6:-} loops
    local sw=${7:-} swback=${8:-} swappiness=${9:-} radev=${10:-} ra=${11:-}
    loops=$(losetup -a | grep -F "($back" || true)
    [[ -n $loops ]] && echo "loop device still attached: $loops"
    awk -v m="$mnt" '$2 == m { print "still mounted: " $0 }' /proc/mounts
    rules_for "$mm" | sed 's/^/throttle rule left: /'
    [[ -e $back ]] && echo "backing file left: $back"
    [[ -e ${back%/*} ]] && echo "working directory left: ${back%/*}"
    [[ -e ${back%/*}.cleanup.log ]] && echo "guardian log: $(cat "${back%/*}.cleanup.log")"
    [[ -n $shm && -e $shm ]] && echo "sb_tmpdir_in directory left: $shm"
    if [[ -n $pid ]] && _sb_proc "$pid" && [[ $_SB_PSTATE != Z && $_SB_PSTART == "$start" ]]; then
        echo "sb_background process still running: $pid"
    fi
    if [[ -n $sw ]]; then
        sb_swap_on "$sw" && echo "swap still on: $sw"
        loops=$(losetup -a | grep -F "($swback" || true)
        [[ -n $loops ]] && echo "swap's loop device still attached: $loops"
        [[ -e ${swback%/*} ]] && echo "swap's backing directory left: ${swback%/*}"
    fi
    if [[ -n $swappiness && $(</proc/sys/vm/swappiness) != "$swappiness" ]]; then
        echo "vm.swappiness is $(</proc/sys/vm/swappiness), not $swappiness again"
    fi
    if [[ -n $ra && $(<"/sys/block/${radev##*/}/queue/read_ahead_kb") != "$ra" ]]; then
        echo "$radev reads ahead $(<"/sys/block/${radev##*/}/queue/read_ahead_kb") KiB, not $ra again"
    fi
    return 0
}

# The child: a test that sets up a throttled, mounted loop device, tells the
# parent what it made, and is killed while writing.
child_main() {
    local dir=$1 dev mnt shm bg sw='' swappiness ra
    sb_require_root
    sb_require_loop
    sb_require_blkio
    sb_loop_create 64 dev
    sb_throttle "$dev" wbps=4M rbps=4M
    sb_mkfs "$dev" ext4
    sb_mount "$dev" mnt
    sb_tmpdir_in /dev/shm shm
    : >"$shm/file"
    sb_background bg sleep 600
    _sb_proc "$bg"
    sb_swap_create 16 64 sw || echo "note: $SB_WHY; no swap area in the child"
    swappiness=$(</proc/sys/vm/swappiness)
    sb_sysctl vm.swappiness $((swappiness == 1 ? 2 : 1))
    ra=$(<"/sys/block/${dev##*/}/queue/read_ahead_kb")
    sb_readahead "$dev" $((ra == 128 ? 256 : 128))
    {
        echo "c_shm=$shm"
        echo "c_bg=$bg"
        echo "c_bgstart=$_SB_PSTART"
        echo "c_pid=$BASHPID"
        echo "c_dev=$dev"
        echo "c_mm=$(lsblk -dno MAJ:MIN "$dev" | tr -d ' ')"
        echo "c_mnt=$mnt"
        echo "c_back=$(losetup -nO BACK-FILE "$dev")"
        echo "c_sw=$sw"
        echo "c_swback=${sw:+$(losetup -nO BACK-FILE "$sw")}"
        echo "c_swappiness=$swappiness"
        echo "c_ra=$ra"
    } >"$dir/state"
    # 32 MiB at 4 MiB/s: about 8 s, in the background so that `wait` is
    # interruptible and a signal is handled at once.
    dd if=/dev/zero of="$mnt/big" bs=1M count=32 conv=fdatasync status=none &
    : >"$dir/ready"
    wait
    exit 0
}

# kill_child HOW: run the child in its own process group and kill it
# mid-write. HOW is term (SIGTERM to the shell only: the trap cleans up),
# meson (SIGTERM to the group, SIGKILL 0.5 s later), kill (SIGKILL to the
# group: the guardian cleans up).
kill_child() {
    local how=$1 dir pid rc=0 i left want c_pid c_dev c_mm c_mnt c_back c_shm c_bg c_bgstart
    local c_sw c_swback c_swappiness c_ra
    sb_tmpdir dir
    setsid bash "$here/fixture_selftest.sh" --child "$dir" >"$dir/out" 2>&1 &
    pid=$!
    for ((i = 0; i < 600; i++)); do
        [[ -e $dir/ready ]] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if [[ ! -e $dir/ready ]]; then
        wait "$pid" || rc=$?
        [[ $rc -eq 77 ]] && sb_skip "child: $(cat "$dir/out")"
        sb_fail "child ($how) did not get ready (exit $rc): $(cat "$dir/out")"
    fi
    # shellcheck source=/dev/null
    . "$dir/state"
    [[ $c_pid == "$pid" ]] || sb_fail "child pid $c_pid is not \$! $pid (setsid forked?)"
    sleep 1 # dd is now writing through the 4 MiB/s throttle
    # Before: everything is there.
    grep -qF "($c_back)" <<<"$(losetup -a)" || sb_fail "child's $c_dev is not attached to $c_back"
    awk -v m="$c_mnt" '$2 == m { f = 1 } END { exit !f }' /proc/mounts || sb_fail "child's $c_mnt is not mounted"
    [[ -n $(rules_for "$c_mm") ]] || sb_fail "child's throttle on $c_mm is not set"
    [[ -f $c_shm/file ]] || sb_fail "child's $c_shm/file is not there"
    kill -0 "$c_bg" 2>/dev/null || sb_fail "child's background process $c_bg is not running"
    if [[ -n $c_sw ]]; then
        sb_swap_on "$c_sw" || sb_fail "child's swap on $c_sw is not on"
    fi
    [[ $(</proc/sys/vm/swappiness) != "$c_swappiness" ]] || sb_fail "child's vm.swappiness is not set"
    [[ $(<"/sys/block/${c_dev##*/}/queue/read_ahead_kb") != "$c_ra" ]] || sb_fail "child's read-ahead is not set"
    case $how in
        term)
            kill -TERM "$pid"
            want=143
            ;;
        meson)
            kill -TERM -- "-$pid"
            sleep 0.5
            kill -KILL -- "-$pid" 2>/dev/null || true
            want="143 137"
            ;;
        kill)
            kill -KILL -- "-$pid"
            want=137
            ;;
    esac
    wait "$pid" 2>/dev/null || rc=$? # (no "Killed" job report)
    [[ " $want " == *" $rc "* ]] || sb_fail "child ($how) exited $rc, expected one of: $want; output: $(cat "$dir/out")"
    if [[ $how != term ]]; then
        # What the trap did not finish is the guardian's: give it 20 s.
        for ((i = 0; i < 200; i++)); do
            [[ -z $(leftovers "$c_back" "$c_mnt" "$c_mm" "$c_shm" "$c_bg" "$c_bgstart" "$c_sw" "$c_swback" "$c_swappiness" "$c_dev" "$c_ra") ]] && break
            sleep 0.1
        done
    fi
    left=$(leftovers "$c_back" "$c_mnt" "$c_mm" "$c_shm" "$c_bg" "$c_bgstart" "$c_sw" "$c_swback" "$c_swappiness" "$c_dev" "$c_ra")
    [[ -z $left ]] || sb_fail "child ($how) left behind: $left; child output: $(cat "$dir/out")"
    echo "child killed ($how, exit $rc): $c_dev detached, $c_mnt unmounted, rules for $c_mm gone, files and $c_shm removed, process $c_bg ended${c_sw:+, swap on $c_sw off}, vm.swappiness $c_swappiness and read-ahead $c_ra KiB again"
}

main() {
    local dev mm mnt tmp wrate rrate ok=1 back sum want i left
    sb_require_root
    sb_require_cmd dd awk sed grep setsid sha256sum mkfs.ext4 mountpoint
    sb_require_loop
    sb_require_blkio

    # The helpers that only compute.
    sb_within 8.4 8 5 >/dev/null || sb_fail "sb_within 8.4 8 5 should be ok"
    ! sb_within 8.5 8 5 >/dev/null || sb_fail "sb_within 8.5 8 5 should be out of range"
    ! sb_within 7.5 8 5 >/dev/null || sb_fail "sb_within 7.5 8 5 should be out of range"

    # 1. True speed.
    sb_loop_create 64 dev
    mm=$(lsblk -dno MAJ:MIN "$dev" | tr -d ' ')
    back=$(losetup -nO BACK-FILE "$dev")
    echo "loop device $dev ($mm) on $back, direct I/O $(cat "/sys/block/${dev##*/}/loop/dio")"
    sb_throttle "$dev" wbps=8M rbps=16M
    rules_for "$mm" | sed 's/^/  rule: /'
    sb_mkfs "$dev" ext4
    sb_mount "$dev" mnt
    sb_tmpdir tmp

    echo "write 16 MiB, dd conv=fdatasync bs=1M, limit 8 MiB/s:"
    LC_ALL=C dd if=/dev/zero of="$mnt/data" bs=1M count=16 conv=fdatasync 2>"$tmp/dd-write" ||
        sb_fail "dd write failed: $(cat "$tmp/dd-write")"
    dd_rate "$tmp/dd-write" wrate
    sb_within "$wrate" 8 5 || ok=0

    echo "read 16 MiB, dd iflag=direct bs=1M, limit 16 MiB/s:"
    LC_ALL=C dd if="$mnt/data" of=/dev/null bs=1M iflag=direct 2>"$tmp/dd-read" ||
        sb_fail "dd read failed: $(cat "$tmp/dd-read")"
    dd_rate "$tmp/dd-read" rrate
    sb_within "$rrate" 16 5 || ok=0

    sb_checksum "$mnt/data" sum
    want=$(head -c 16M /dev/zero | sha256sum | cut -d' ' -f1)
    [[ $sum == "$want" ]] || sb_fail "checksum of $mnt/data is $sum, expected $want"
    echo "checksum ok: $sum"
    [[ $ok -eq 1 ]] || sb_fail "dd rates are not within 5% of the throttle limits"

    # 2. Interrupted tests clean up.
    kill_child term
    kill_child meson
    kill_child kill

    # 3. Our own cleanup.
    sb_cleanup
    for ((i = 0; i < 20; i++)); do # losetup -d may finish asynchronously
        left=$(leftovers "$back" "$mnt" "$mm")
        [[ -z $left ]] && break
        sleep 0.1
    done
    [[ -z $left ]] || sb_fail "after sb_cleanup: $left"
    if losetup -a | grep -F "${back%/*}/"; then
        sb_fail "losetup -a still lists backing files of this test"
    fi
    echo "own cleanup ok: $dev detached, $mnt unmounted, rules for $mm gone, ${back%/*} removed"
    echo "PASS"
}

if [[ ${1:-} == --child ]]; then
    child_main "$2"
else
    main "$@"
fi
