# shellcheck shell=bash
#
# tests/slow/lib.sh: fixtures for storbench's slow tests. It gives loop devices
# with a known true speed (a sparse file behind a direct-I/O loop device,
# throttled by the block cgroup), filesystems and mounts on them, and checks.
# Everything a test changes on the machine is undone when the test ends,
# including when it fails or is interrupted.
#
#     . "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"
#     sb_require_root; sb_require_loop; sb_require_blkio
#     sb_loop_create 64 dev                  # sets $dev, e.g. /dev/loop3
#     sb_throttle "$dev" wbps=10M rbps=20M   # 10 MiB/s write, 20 MiB/s read
#     sb_mkfs "$dev" ext4
#     sb_mount "$dev" mnt                    # sets $mnt
#     sb_fuse_create 64 16 fake              # a 64 MiB device keeping 16 MiB (wraps)
#     sb_fuse_create 64 64 bad eio_read=1048576-1052672   # reads of 1 MiB..+4 KiB fail
#     sb_fuse_eio eio_write=0-4096           # change the last one's EIO ranges
#     sb_fuse_card 256 card cliff=64M:40M:8M boundary=4M:2000   # a card's timing
#     sb_fuse_card 256 card open_aus=4:4M:2000   # a card that keeps 4 AUs open
#     sb_fuse_control cliff=off              # change the last one's timing
#     sb_fuse_stats written n                # its write counter
#     sb_tmpdir_in /dev/shm shm              # a directory outside the working one
#     sb_swap_create 64 64 sdev || echo "$SB_WHY"   # swap in its first 64 KiB
#     sb_swap_on "$sdev"                     # is it a swap area in use?
#     sb_sysctl vm.swappiness 0              # a kernel setting, restored at cleanup
#     sb_readahead "$dev" 128                # its read-ahead in KiB, restored at cleanup
#     sb_background pid qemu-system-x86_64 ...   # a process ended at cleanup
#     ...                                    # the test; cleanup runs on exit
#
# Conventions
#  * Exit codes are meson's: 0 pass, 1 fail (sb_fail), 77 skip (sb_skip).
#  * A function that returns a value takes the NAME of a variable after its
#    inputs (sb_tmpdir VAR, sb_loop_create SIZE VAR, sb_mount DEV VAR,
#    sb_checksum PATH VAR) and sets it in the caller with printf -v.
#    That keeps it in the test's own shell. `dev=$(sb_loop_create 64)` would
#    run it in a subshell, where sb_fail or sb_skip only ends the subshell. The
#    form without a NAME prints the value on stdout, for interactive use.
#    Don't name your variable _sb_*: that prefix belongs to this library.
#  * Every change (mount, throttle rule, loop device, file, cgroup move) is
#    written to a journal file *before* it is made. sb_cleanup undoes what the
#    journal lists, so a change made in a subshell is undone as well.
#  * sb_cleanup runs on EXIT, INT, TERM and HUP. Don't replace the EXIT trap;
#    if you need your own, call sb_cleanup from it. meson ends a test that
#    times out (and a test still running when meson gets Ctrl-C) by sending
#    SIGTERM to its process group and SIGKILL 0.5 s later. SIGKILL cannot be
#    trapped, so a guardian runs next to each test. The guardian is this file
#    run as a program, in its own session, so the group kill misses it. It
#    waits for the test process to die, then replays whatever the journal still
#    lists. It writes a log to $SB_TMP/storbench-test.*.cleanup.log and deletes
#    the log again when everything was undone.
#  * Works under `set -euo pipefail`. Needs bash >= 4.4.
#  * Environment: SB_TMP (where the working dir goes, default /tmp),
#    SB_LOOP_DIR (where loop backing files go, see sb_loop_create),
#    STORBENCH (path of the storbench binary, set by meson).

if [[ -z ${BASH_VERSION:-} ]]; then
    echo "lib.sh: needs bash" >&2
    exit 1
fi

# SB_BIN: path to the storbench binary, from the environment variable
# STORBENCH, which meson sets. Check it with sb_require_bin.
SB_BIN=${STORBENCH:-}

# --------------------------------------------------------------------------
# Results

# sb_skip REASON...: print "SKIP: REASON" on stdout and exit 77, meson's skip
# code. Cleanup runs through the EXIT trap.
sb_skip() {
    printf 'SKIP: %s\n' "$*"
    exit 77
}

# sb_fail MSG...: print "FAIL: MSG" on stderr and exit 1. Cleanup runs
# through the EXIT trap.
sb_fail() {
    printf 'FAIL: %s\n' "$*" >&2
    exit 1
}

# --------------------------------------------------------------------------
# Requirements: each one skips the test, with the reason, when it is not met.

# sb_require_root: skip unless running as root.
sb_require_root() {
    [[ $EUID -eq 0 ]] || sb_skip "needs root (running as uid $EUID)"
}

# sb_require_cmd CMD...: skip unless every CMD is on PATH.
sb_require_cmd() {
    local c
    for c in "$@"; do
        command -v -- "$c" >/dev/null 2>&1 || sb_skip "command not found: $c"
    done
}

# sb_require_bin: skip unless $SB_BIN (from $STORBENCH) is an executable file.
sb_require_bin() {
    [[ -n $SB_BIN ]] ||
        sb_skip "storbench binary unknown: set STORBENCH=/path/to/storbench (meson does)"
    [[ -f $SB_BIN && -x $SB_BIN ]] ||
        sb_skip "storbench binary not executable: STORBENCH=$SB_BIN"
}

# sb_require_loop: skip unless losetup works here, checked by really
# attaching (with --direct-io=on) and detaching a small file.
sb_require_loop() {
    local f dev err
    sb_require_cmd losetup truncate lsblk
    [[ $EUID -eq 0 ]] || sb_skip "loop devices need root (running as uid $EUID)"
    if [[ ! -e /dev/loop-control ]]; then
        modprobe loop >/dev/null 2>&1 || true
        [[ -e /dev/loop-control ]] || sb_skip "no /dev/loop-control (loop driver missing?)"
    fi
    _sb_ensure_init
    f=$_SB_ROOT/loop-probe.img
    _sb_journal_add P "$f"
    _sb_journal_add L "$f"
    truncate -s 1M "$f" || sb_fail "cannot create $f"
    if ! dev=$(losetup -f --show --direct-io=on "$f" 2>"$_SB_ROOT/losetup.err"); then
        err=$(<"$_SB_ROOT/losetup.err")
        sb_skip "cannot attach a loop device: ${err:-losetup failed}"
    fi
    losetup -d "$dev" 2>/dev/null || true
    rm -f -- "$f"
}

# sb_require_fuse: skip unless the FUSE fixture can run: the sb_fakedisk
# program (tests/slow/fuse/, built by meson where libfuse3-dev is installed,
# its path in $SB_FAKEDISK), /dev/fuse and fusermount3.
sb_require_fuse() {
    [[ -n ${SB_FAKEDISK:-} && -x ${SB_FAKEDISK:-} ]] ||
        sb_skip "the FUSE fixture sb_fakedisk was not built (needs libfuse3-dev: scripts/install-deps test)"
    [[ -c /dev/fuse ]] || sb_skip "no /dev/fuse (FUSE is not available here)"
    sb_require_cmd fusermount3 mountpoint setsid
}

# sb_require_blkio: skip unless block I/O throttling can be set up.
#  cgroup v1: the throttle files of the blkio root must be writable. Rules
#   there only apply to I/O issued from the root blkio cgroup (v1 throttling
#   is flat), and writeback is always issued from there. So a test that runs
#   in another blkio cgroup is moved into the root, and moved back at cleanup.
#  cgroup v2: limits go to io.max of the test's cgroup, which applies to
#   its I/O and, with the memory controller, to its writeback. In the root
#   cgroup, which has no io.max, the test moves into a new child cgroup that
#   has io (and memory) enabled. Both are undone at cleanup. Elsewhere
#   without io.max the test is skipped.
# Call it in the test's own shell, not in a subshell: it can move the process.
sb_require_blkio() {
    [[ ${_SB_CG_READY:-} == "$BASHPID" ]] && return 0
    [[ $EUID -eq 0 ]] || sb_skip "blkio throttling needs root (running as uid $EUID)"
    _sb_ensure_init
    local mnt own child f
    mnt=$(awk '$3 == "cgroup" && ("," $4 ",") ~ /,blkio,/ { print $2; exit }' \
        "${_SB_MOUNTS_FILE:-/proc/mounts}")
    if [[ -n $mnt ]]; then
        for f in read_bps write_bps read_iops write_iops; do
            [[ -e $mnt/blkio.throttle.${f}_device ]] ||
                sb_skip "cgroup v1 blkio at $mnt has no blkio.throttle.${f}_device (kernel without CONFIG_BLK_DEV_THROTTLING?)"
            [[ -w $mnt/blkio.throttle.${f}_device ]] ||
                sb_skip "$mnt/blkio.throttle.${f}_device is not writable (read-only cgroup mount?)"
        done
        own=$(awk -F: '("," $2 ",") ~ /,blkio,/ { print $3; exit }' \
            "${_SB_CGROUP_FILE:-/proc/$BASHPID/cgroup}")
        if [[ -n $own && $own != / ]]; then
            _sb_journal_add C move "$mnt$own/cgroup.procs"
            _sb_write "$mnt/cgroup.procs" "$BASHPID" ||
                sb_skip "cannot move the test from blkio cgroup $own to the root, where the throttle rules apply: $_SB_ERR"
        fi
        _SB_CG_MODE=v1
        _SB_CG_DIR=$mnt
        _SB_CG_READY=$BASHPID
        return 0
    fi
    mnt=$(awk '$3 == "cgroup2" { print $2; exit }' "${_SB_MOUNTS_FILE:-/proc/mounts}")
    [[ -n $mnt ]] || sb_skip "no block I/O throttling: neither cgroup v1 blkio nor cgroup v2 is mounted"
    _sb_has_word io "$mnt/cgroup.controllers" ||
        sb_skip "cgroup v2 at $mnt has no io controller (bound to a v1 hierarchy, or kernel without CONFIG_BLK_DEV_THROTTLING)"
    own=$(awk -F: '$1 == "0" { print $3; exit }' "${_SB_CGROUP_FILE:-/proc/$BASHPID/cgroup}")
    [[ -n $own ]] || sb_skip "cannot find this process's cgroup v2 in /proc/$BASHPID/cgroup"
    [[ $own == / ]] && own=
    if [[ -w $mnt$own/io.max ]]; then
        # (own is empty in a cgroup namespace whose root is not the real one)
        _SB_CG_DIR=$mnt$own
    elif [[ -z $own ]]; then
        # The root cgroup has no io.max: move into a fresh child. The root
        # may have processes and still enable controllers for children.
        for f in io memory; do
            _sb_has_word "$f" "$mnt/cgroup.controllers" || continue
            _sb_has_word "$f" "$mnt/cgroup.subtree_control" && continue
            _sb_journal_add C subtree "$mnt" "-$f"
            _sb_write "$mnt/cgroup.subtree_control" "+$f" ||
                sb_skip "cgroup v2: cannot enable $f in $mnt/cgroup.subtree_control: $_SB_ERR"
        done
        child=$mnt/storbench-test.$BASHPID
        _sb_journal_add C cgdir "$child" "$mnt/cgroup.procs"
        mkdir "$child" 2>/dev/null || [[ -d $child ]] ||
            sb_skip "cgroup v2: cannot create $child"
        _sb_write "$child/cgroup.procs" "$BASHPID" ||
            sb_skip "cgroup v2: cannot move the test into $child: $_SB_ERR"
        [[ -w $child/io.max ]] || sb_skip "cgroup v2: $child has no writable io.max"
        _SB_CG_DIR=$child
    else
        sb_skip "cgroup v2: this test runs in $own, which has no io.max (io is not enabled in its parent's cgroup.subtree_control); run it from the root cgroup or enable io there"
    fi
    _SB_CG_MODE=v2
    _SB_CG_READY=$BASHPID
}

# --------------------------------------------------------------------------
# Fixtures: each registers its undo in the journal before changing anything.

# sb_tmpdir [VAR]: create a new empty directory inside this test's working
# directory (itself under ${SB_TMP:-/tmp}). It is removed at cleanup. Sets
# VAR, or prints the path when no VAR is given.
sb_tmpdir() {
    local _sb_var=${1:-} _sb_d
    _sb_check_var "$_sb_var"
    _sb_ensure_init
    _sb_d=$(mktemp -d "$_SB_ROOT/tmp.XXXXXX") || sb_fail "sb_tmpdir: mktemp failed in $_SB_ROOT"
    _sb_journal_add P "$_sb_d"
    _sb_set "$_sb_var" "$_sb_d"
}

# sb_tmpdir_in BASE [VAR]: as sb_tmpdir, but a new directory
# BASE/storbench-test.XXXXXX outside the working directory, e.g. in /dev/shm
# for a file that must live in memory. It is removed at cleanup (only a
# directory of that name is ever removed).
sb_tmpdir_in() {
    local _sb_base=${1:-} _sb_var=${2:-} _sb_d
    [[ -d $_sb_base ]] || sb_fail "usage: sb_tmpdir_in BASE [VAR] (no directory '$_sb_base')"
    _sb_check_var "$_sb_var"
    _sb_ensure_init
    _sb_d=$(mktemp -d "${_sb_base%/}/storbench-test.XXXXXX") ||
        sb_fail "sb_tmpdir_in: mktemp failed in $_sb_base"
    _sb_journal_add D "$_sb_d"
    _sb_set "$_sb_var" "$_sb_d"
}

# sb_background VAR CMD [ARGS...]: run CMD in the background, with stdin
# from /dev/null, and set VAR to its pid. It is ended at cleanup (SIGTERM,
# SIGKILL 3 s later) if still running, also by the guardian when the test
# itself was killed. Wait for it with `wait "$VAR"`.
sb_background() {
    local _sb_var=${1:-} _sb_pid _sb_start=0
    [[ -n $_sb_var && $# -ge 2 ]] || sb_fail "usage: sb_background VAR CMD [ARGS...]"
    _sb_check_var "$_sb_var"
    shift
    _sb_ensure_init
    "$@" </dev/null &
    _sb_pid=$!
    _sb_proc "$_sb_pid" && _sb_start=$_SB_PSTART
    _sb_journal_add K "$_sb_pid" "$_sb_start"
    _sb_set "$_sb_var" "$_sb_pid"
}

# sb_loop_create SIZE_MIB [VAR]: create a sparse backing file of SIZE_MIB MiB
# and attach it with `losetup -f --show --direct-io=on`. It is detached and
# removed at cleanup. Sets VAR to the device (/dev/loopN), or prints it when
# no VAR is given. Warns on stderr when the kernel did not turn direct I/O
# on. The file goes to a new directory in SB_LOOP_DIR if set (as
# sb_tmpdir_in makes it, removed at cleanup), else in /dev/shm when that is
# a tmpfs with room for it (and 1 GiB more), else to the working directory:
# in RAM the throttle is the device's only limit. On the machine's disk the
# loop device also carries that disk's stalls: a direct 1 MiB write job
# throttled to 10 MiB/s measured 9.34 there once in a CI run, where it
# measures 9.99-10.00 on a quiet disk (6 of 6) and in RAM.
sb_loop_create() {
    local _sb_size=${1:-} _sb_var=${2:-} _sb_back _sb_dev _sb_dio _sb_parts=${_SB_PARTITIONED:-}
    local _sb_dir
    [[ $_sb_size =~ ^[1-9][0-9]*$ ]] || sb_fail "usage: sb_loop_create SIZE_MIB [VAR] (got '$_sb_size')"
    _sb_check_var "$_sb_var"
    _sb_ensure_init
    _sb_backing_dir "$_sb_size" sb_loop_create
    _sb_dir=$_SB_BDIR
    _sb_back=$(mktemp "$_sb_dir/loop.XXXXXX.img") || sb_fail "sb_loop_create: mktemp failed in $_sb_dir"
    _sb_journal_add P "$_sb_back"
    _sb_journal_add L "$_sb_back"
    truncate -s "${_sb_size}M" "$_sb_back" || sb_fail "sb_loop_create: truncate -s ${_sb_size}M $_sb_back failed"
    [[ -z $_sb_parts ]] || _sb_write_mbr "$_sb_back" "$_sb_size"
    _sb_dev=$(losetup -f --show --direct-io=on ${_sb_parts:+--partscan} "$_sb_back" 2>"$_SB_ROOT/losetup.err") ||
        sb_fail "losetup -f --show --direct-io=on $_sb_back: $(<"$_SB_ROOT/losetup.err")"
    [[ $_sb_dev == /dev/* && -b $_sb_dev ]] || sb_fail "losetup printed '$_sb_dev', not a block device"
    _sb_dio=$(cat "/sys/block/${_sb_dev##*/}/loop/dio" 2>/dev/null) || _sb_dio=
    [[ $_sb_dio == 1 ]] ||
        _sb_log "warning: direct I/O is off on $_sb_dev (does the file system of $_SB_ROOT support O_DIRECT?)"
    _sb_settle
    _sb_set "$_sb_var" "$_sb_dev"
}

# sb_loop_create_partitioned SIZE_MIB [VAR]: as sb_loop_create, but the
# backing file holds an MBR partition table with one Linux partition from
# 1 MiB to the end, and the device is attached with --partscan, so the
# partition appears as ${VAR}p1.
sb_loop_create_partitioned() {
    local _sb_pvar=${2:-} _sb_pdev _sb_part _sb_mm
    _SB_PARTITIONED=1 sb_loop_create "$1" SB_LAST_LOOP
    _sb_pdev=$SB_LAST_LOOP
    _sb_part=${_sb_pdev}p1
    # The kernel may not have scanned yet (and without udev nobody makes the
    # node): ask partx, then make the node from sysfs if it is missing.
    [[ -e /sys/block/${_sb_pdev##*/}/${_sb_part##*/} ]] || partx -a "$_sb_pdev" 2>/dev/null || true
    _sb_mm=$(cat "/sys/block/${_sb_pdev##*/}/${_sb_part##*/}/dev" 2>/dev/null) ||
        sb_fail "sb_loop_create_partitioned: the kernel shows no partition on $_sb_pdev"
    if [[ ! -b $_sb_part ]]; then
        _sb_journal_add P "$_sb_part"
        mknod "$_sb_part" b "${_sb_mm%%:*}" "${_sb_mm##*:}" || sb_fail "mknod $_sb_part failed"
    fi
    _sb_set "$_sb_pvar" "$_sb_pdev"
}

# _sb_write_mbr FILE SIZE_MIB: writes a DOS partition table with one type
# 0x83 partition starting at sector 2048 (no sfdisk needed).
_sb_write_mbr() {
    local file=$1 size_mib=$2 start=2048 count
    count=$((size_mib * 2048 - start))
    _sb_le() { printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }
    # Entry 1 at byte 446: not bootable, CHS unused, type 0x83, LBA start, sectors.
    printf "\\x00\\x00\\x00\\x00\\x83\\x00\\x00\\x00$(_sb_le $start)$(_sb_le $count)" |
        dd of="$file" bs=1 seek=446 conv=notrunc status=none || sb_fail "writing the partition table failed"
    printf '\x55\xaa' | dd of="$file" bs=1 seek=510 conv=notrunc status=none ||
        sb_fail "writing the MBR signature failed"
}

# sb_fuse_create SIZE_MIB BACKING_MIB VAR [eio_read=A-B[:C-D...]] [eio_write=A-B[:...]]:
# a block device that claims SIZE_MIB MiB but keeps its data in a backing
# file of BACKING_MIB MiB, byte offset modulo the backing size (a
# counterfeit card that wraps around; BACKING_MIB = SIZE_MIB for an honest
# one). eio_read and eio_write make every read or write that touches one of
# the byte ranges [A, B) of the device fail with EIO. It is the FUSE program
# sb_fakedisk serving one file (direct_io: nothing cached) with a loop device
# over it (attached without --direct-io, which it does not need: the FUSE
# file caches nothing, every I/O of the loop device reaches the program).
# Sets VAR to the loop device, SB_FUSE_BACKING to the backing file (write
# there to change the device's data behind its back), SB_FUSE_FILE to the
# served file, SB_FUSE_CONTROL to its control file (see sb_fuse_eio) and
# SB_FUSE_STATS to its counters (see sb_fuse_stats). At
# cleanup the loop device is detached, then the FUSE file system unmounted
# and its program ended. The program runs in its own session, so a killed
# test leaves it to the guardian.
sb_fuse_create() {
    local _sb_size=${1:-} _sb_bsize=${2:-} _sb_var=${3:-} _sb_o
    [[ $_sb_size =~ ^[1-9][0-9]*$ && $_sb_bsize =~ ^[1-9][0-9]*$ && -n $_sb_var ]] ||
        sb_fail "usage: sb_fuse_create SIZE_MIB BACKING_MIB VAR [eio_read=A-B] [eio_write=A-B]"
    shift 3
    _sb_check_var "$_sb_var"
    for _sb_o in "$@"; do
        [[ $_sb_o =~ ^eio_(read|write)=[0-9]+-[0-9]+(:[0-9]+-[0-9]+)*$ ]] ||
            sb_fail "sb_fuse_create: bad option '$_sb_o' (eio_read=START-END or eio_write=START-END, in bytes)"
    done
    _sb_ensure_init
    _sb_fuse_start sb_fuse_create "$_sb_size" "$_sb_bsize" "$_SB_ROOT" "" "$_sb_var" "$@"
}

# sb_fuse_card SIZE_MIB VAR [OPTION...]: an honest device of SIZE_MIB MiB
# with a memory card's timing, for the card tests: the FUSE program
# sb_fakedisk (tests/slow/fuse/sb_fakedisk.c, whose header has the details)
# with a loop device over it attached with --direct-io=on (the FUSE file
# takes it: `losetup -l` shows DIO 1; where a kernel refuses, lib.sh warns,
# and still nothing is cached: the FUSE file is direct_io, and a test opens
# the loop device with O_DIRECT). Its backing file is in RAM where there is
# room, as sb_loop_create's. OPTIONs (sizes and rates may end in K, M or G,
# powers of 1024; they are given to the program in bytes):
#   cliff=N:FAST:SLOW      writes at FAST bytes/s until N bytes have been
#                          written (since attach, reset or recovery), then
#                          at SLOW bytes/s: cliff=64M:40M:8M
#   cliff_recover=SECONDS  the counter goes back to 0 after SECONDS (decimals
#                          allowed) without a write; without it, never
#   boundary=B:COST_US     a read that crosses a multiple of B (a power of
#                          two) takes COST_US microseconds more: boundary=4M:2000
#   read_us=U              every read takes at least U microseconds
#   open_aus=N:AU:COST_US  a write to an AU (offset / AU) that is not among
#                          the N most recently written takes COST_US
#                          microseconds more (N 1 to 64): open_aus=4:4M:2000
#   eio_read=A-B, eio_write=A-B   as sb_fuse_create's
# Sets VAR and SB_FUSE_* as sb_fuse_create does; undone at cleanup the same
# way. Change the timing while in use with sb_fuse_control, read the
# counters with sb_fuse_stats.
sb_fuse_card() {
    local _sb_size=${1:-} _sb_var=${2:-} _sb_o _sb_cargs=()
    [[ $_sb_size =~ ^[1-9][0-9]*$ && -n $_sb_var ]] ||
        sb_fail "usage: sb_fuse_card SIZE_MIB VAR [cliff=N:FAST:SLOW] [cliff_recover=S] [boundary=B:COST_US] [read_us=U] [open_aus=N:AU:COST_US] [eio_read=A-B] [eio_write=A-B]"
    shift 2
    _sb_check_var "$_sb_var"
    for _sb_o in "$@"; do
        _sb_fuse_option sb_fuse_card "$_sb_o" || sb_fail "$_SB_ERR"
        _sb_cargs+=("$_SB_FUSE_OPT")
    done
    _sb_ensure_init
    _sb_backing_dir "$_sb_size" sb_fuse_card
    _sb_fuse_start sb_fuse_card "$_sb_size" "$_sb_size" "$_SB_BDIR" 1 "$_sb_var" "${_sb_cargs[@]}"
}

# sb_fuse_control LINE...: change the last sb_fuse_create or sb_fuse_card
# device while it is in use. LINEs are sb_fuse_card's options (cliff=,
# cliff_recover=, boundary=, read_us=, open_aus=; with sizes as there), "off"
# as the value of all but read_us to turn it off (cliff=off), and "reset": the
# write counter goes back to 0, the cache empty. A setting not given stays
# as it is; the EIO ranges stay unless eio_read= or eio_write= lines are
# given, which then replace both (as sb_fuse_eio). Takes effect at the
# device's next read or write.
sb_fuse_control() {
    local _sb_o _sb_lines=() _sb_eio=
    [[ -n ${SB_FUSE_CONTROL:-} ]] || sb_fail "sb_fuse_control: no FUSE device yet"
    [[ $# -ge 1 ]] || sb_fail "usage: sb_fuse_control LINE... (cliff=N:FAST:SLOW|off, cliff_recover=S|off, boundary=B:COST_US|off, read_us=U, open_aus=N:AU:COST_US|off, reset, eio_read=A-B, eio_write=A-B)"
    for _sb_o in "$@"; do
        if [[ $_sb_o == reset || $_sb_o =~ ^(cliff|cliff_recover|boundary|open_aus)=off$ ]]; then
            _sb_lines+=("$_sb_o")
            continue
        fi
        _sb_fuse_option sb_fuse_control "$_sb_o" || sb_fail "$_SB_ERR"
        _sb_lines+=("$_SB_FUSE_OPT")
        [[ $_sb_o == eio_* ]] && _sb_eio=1
    done
    if [[ -z $_sb_eio ]]; then
        mapfile -t -O "${#_sb_lines[@]}" _sb_lines < <(grep '^eio_' "$SB_FUSE_CONTROL" 2>/dev/null)
    fi
    if ! { printf '%s\n' "${_sb_lines[@]}" >"$SB_FUSE_CONTROL.new" &&
        mv -f -- "$SB_FUSE_CONTROL.new" "$SB_FUSE_CONTROL"; }; then
        sb_fail "sb_fuse_control: cannot write $SB_FUSE_CONTROL"
    fi
}

# sb_fuse_stats KEY [VAR]: one counter of the last FUSE device, read from
# its stats file (SB_FUSE_STATS, generated when read). KEYs: written (bytes
# on the cliff's counter: since attach, reset or recovery), written_total,
# writes, max_write (the largest write request the kernel sent), cliff
# (N:FAST:SLOW in bytes, or off), cliff_state (fast, slow or off),
# cliff_recover (seconds or off), crossings (times the counter passed N),
# recoveries, idle_us (paced time the writer left unused by pausing beyond
# the fixture's 5 ms token bucket: a measured rate is lower by it), boundary (B:COST_US or off), read_us, reads, boundary_reads
# (reads that paid the boundary cost), max_read, open_aus (N:AU:COST_US in
# bytes, or off), open_au_misses (writes that paid the open-AU cost). Sets
# VAR, or prints it.
sb_fuse_stats() {
    local _sb_key=${1:-} _sb_var=${2:-} _sb_v
    [[ -n $_sb_key ]] || sb_fail "usage: sb_fuse_stats KEY [VAR]"
    _sb_check_var "$_sb_var"
    [[ -n ${SB_FUSE_STATS:-} ]] || sb_fail "sb_fuse_stats: no FUSE device yet"
    _sb_v=$(sed -n "s/^$_sb_key=//p" "$SB_FUSE_STATS") || sb_fail "sb_fuse_stats: cannot read $SB_FUSE_STATS"
    [[ -n $_sb_v ]] || sb_fail "sb_fuse_stats: no '$_sb_key' in $SB_FUSE_STATS"
    _sb_set "$_sb_var" "$_sb_v"
}

# sb_fuse_eio [eio_read=A-B[:C-D...]] [eio_write=A-B[:...]]: change the EIO
# ranges of the last sb_fuse_create device while it is in use (make a
# filesystem first, then make the device fail); no option turns EIO off.
# Takes effect at the device's next read or write. Its timing settings
# (sb_fuse_card) stay as they are.
sb_fuse_eio() {
    local _sb_o
    [[ -n ${SB_FUSE_CONTROL:-} ]] || sb_fail "sb_fuse_eio: no sb_fuse_create device yet"
    for _sb_o in "$@"; do
        [[ $_sb_o =~ ^eio_(read|write)=[0-9]+-[0-9]+(:[0-9]+-[0-9]+)*$ ]] ||
            sb_fail "sb_fuse_eio: bad option '$_sb_o' (eio_read=START-END or eio_write=START-END, in bytes)"
    done
    printf '%s\n' "$@" >"$SB_FUSE_CONTROL.new" && mv -f -- "$SB_FUSE_CONTROL.new" "$SB_FUSE_CONTROL" ||
        sb_fail "sb_fuse_eio: cannot write $SB_FUSE_CONTROL"
}

# sb_throttle DEV [rbps=N] [wbps=N] [riops=N] [wiops=N]: limit reads and
# writes of DEV in bytes/s (rbps, wbps) and operations/s (riops, wiops).
# N may end in K, M or G (x1024, x1024^2, x1024^3): wbps=8M is 8 MiB/s. N=0
# removes that limit. Rules are set for DEV's MAJ:MIN (from lsblk): the blkio
# throttle files in cgroup v1, io.max in cgroup v2. Calls sb_require_blkio
# first. At cleanup, v1 gets "MAJ:MIN 0" in each file it wrote, and v2 gets
# "MAJ:MIN rbps=max wbps=max riops=max wiops=max".
#
# Choose byte limits that are whole multiples of 10 MiB/s when the device must
# have one true speed. The throttle grants each 100 ms slice its budget
# (limit / 10) and does not carry a part-used budget over: with 32 MiB/s and
# 256 KiB reads one at a time, 12 reads fit a slice's 3.2 MiB and the 13th
# waits for the next, a steady 30.0 MiB/s that lasted seconds (measured).
# With 20 MiB/s every power-of-two block up to 2 MiB fills a slice exactly.
sb_throttle() {
    local dev=${1:-} mm kv key val file spec=() f
    [[ $# -ge 2 ]] || sb_fail "usage: sb_throttle DEV [rbps=N] [wbps=N] [riops=N] [wiops=N]"
    shift
    [[ -b $dev ]] || sb_fail "sb_throttle: $dev is not a block device"
    sb_require_blkio
    mm=$(_sb_majmin "$dev") || sb_fail "sb_throttle: cannot find MAJ:MIN of $dev"
    if [[ " ${_SB_THROTTLED:-} " != *" $mm "* ]]; then
        # The first throttle of a device number starts from no limit: a
        # run killed before its cleanup leaves its limits on the number,
        # which the next loop device to take it would inherit.
        _SB_THROTTLED="${_SB_THROTTLED:-} $mm"
        for f in read_bps write_bps read_iops write_iops; do
            file=$_SB_CG_DIR/blkio.throttle.${f}_device
            [[ $_SB_CG_MODE == v1 ]] && grep -q "^$mm " "$file" 2>/dev/null || continue
            _sb_log "sb_throttle: $dev ($mm) had a $f limit no one here set; removed"
            _sb_journal_add_once T "$file" "$mm" "$mm 0"
            _sb_write "$file" "$mm 0" || sb_fail "sb_throttle: writing '$mm 0' to $file: $_SB_ERR"
        done
        if [[ $_SB_CG_MODE == v2 ]] && grep -qE "^$mm .*=[0-9]" "$_SB_CG_DIR/io.max" 2>/dev/null; then
            _sb_log "sb_throttle: $dev ($mm) had limits no one here set; removed"
            _sb_journal_add_once T "$_SB_CG_DIR/io.max" "$mm" "$mm rbps=max wbps=max riops=max wiops=max"
            _sb_write "$_SB_CG_DIR/io.max" "$mm rbps=max wbps=max riops=max wiops=max" ||
                sb_fail "sb_throttle: clearing $mm in $_SB_CG_DIR/io.max: $_SB_ERR"
        fi
    fi
    for kv in "$@"; do
        key=${kv%%=*}
        val=${kv#*=}
        [[ $kv == *=* ]] || sb_fail "sb_throttle: expected KEY=N, got '$kv'"
        val=$(_sb_number "$val") || sb_fail "sb_throttle: bad number in '$kv'"
        case $key in
            rbps) f=read_bps ;;
            wbps) f=write_bps ;;
            riops) f=read_iops ;;
            wiops) f=write_iops ;;
            *) sb_fail "sb_throttle: unknown limit '$key' (rbps, wbps, riops, wiops)" ;;
        esac
        if [[ $_SB_CG_MODE == v1 ]]; then
            file=$_SB_CG_DIR/blkio.throttle.${f}_device
            _sb_journal_add_once T "$file" "$mm" "$mm 0"
            _sb_write "$file" "$mm $val" || sb_fail "sb_throttle: writing '$mm $val' to $file: $_SB_ERR"
            if [[ $val != 0 ]] && ! _sb_has_line "$file" "$mm $val"; then
                sb_fail "sb_throttle: $file does not show '$mm $val' after writing it"
            fi
        else
            [[ $val == 0 ]] && val=max
            spec+=("$key=$val")
        fi
    done
    if [[ $_SB_CG_MODE == v2 ]]; then
        file=$_SB_CG_DIR/io.max
        _sb_journal_add_once T "$file" "$mm" "$mm rbps=max wbps=max riops=max wiops=max"
        _sb_write "$file" "$mm ${spec[*]}" || sb_fail "sb_throttle: writing '$mm ${spec[*]}' to $file: $_SB_ERR"
    fi
}

# sb_mkfs DEV FSTYPE [EXTRA_ARGS...]: make a file system on DEV without
# asking and without output (shown only if it fails). ext2/3/4 use
# -E lazy_itable_init=0,lazy_journal_init=0: otherwise ext4lazyinit keeps
# writing in the background after mount, using the throttled bandwidth the
# test measures. vfat uses mkfs.vfat, xfs/btrfs/f2fs use -f, and any other
# type uses mkfs.FSTYPE. Skips when the mkfs program is missing.
sb_mkfs() {
    local dev=${1:-} fs=${2:-} cmd out
    [[ -n $dev && -n $fs ]] || sb_fail "usage: sb_mkfs DEV FSTYPE [EXTRA_ARGS...]"
    shift 2
    [[ -b $dev ]] || sb_fail "sb_mkfs: $dev is not a block device"
    case $fs in
        ext2 | ext3 | ext4) cmd=("mkfs.$fs" -q -F -E "lazy_itable_init=0,lazy_journal_init=0") ;;
        vfat | fat) cmd=(mkfs.vfat) ;;
        xfs | btrfs | f2fs) cmd=("mkfs.$fs" -q -f) ;;
        *) cmd=("mkfs.$fs") ;;
    esac
    command -v "${cmd[0]}" >/dev/null 2>&1 || sb_skip "command not found: ${cmd[0]} (to make $fs)"
    cmd+=("$@" "$dev")
    out=$("${cmd[@]}" 2>&1 </dev/null) || sb_fail "${cmd[*]} failed: $out"
    _sb_settle
}

# sb_mount DEV [VAR [OPTIONS]]: mount DEV, with `-o OPTIONS` if given, on a
# new directory in the working directory. It is unmounted at cleanup. Sets
# VAR to the mount point, or prints it when no VAR is given. Skips when the
# kernel does not know the file system type (e.g. no vfat or f2fs module).
sb_mount() {
    local _sb_dev=${1:-} _sb_var=${2:-} _sb_opts=${3:-} _sb_mp _sb_out
    [[ -n $_sb_dev ]] || sb_fail "usage: sb_mount DEV [VAR [OPTIONS]]"
    _sb_check_var "$_sb_var"
    _sb_ensure_init
    _sb_mp=$(mktemp -d "$_SB_ROOT/mnt.XXXXXX") || sb_fail "sb_mount: mktemp failed in $_SB_ROOT"
    _sb_journal_add P "$_sb_mp"
    _sb_journal_add M "$_sb_mp"
    if ! _sb_out=$(mount ${_sb_opts:+-o "$_sb_opts"} "$_sb_dev" "$_sb_mp" 2>&1); then
        [[ $_sb_out == *"unknown filesystem type"* ]] &&
            sb_skip "this kernel cannot mount $_sb_dev: ${_sb_out%%$'\n'*}"
        sb_fail "mount ${_sb_opts:+-o $_sb_opts }$_sb_dev $_sb_mp: $_sb_out"
    fi
    _sb_set "$_sb_var" "$_sb_mp"
}

# sb_swap_create SIZE_MIB SWAP_KIB VAR: a loop device of SIZE_MIB MiB whose
# first SWAP_KIB KiB are a swap area in use (mkswap, swapon); VAR is set to
# the device. The swap is turned off at cleanup, before loop devices are
# detached. Returns 1, with SB_WHY saying why, when there is none to have:
# the kernel refuses swap on a loop device, or SB_TMP is a tmpfs.
#
# The backing file is in SB_TMP (on disk), never in /dev/shm: the kernel
# swaps tmpfs pages out too, the backing file's own among them, and a read
# of the device (swapoff's, say) can then wait for itself forever. Seen
# here: a loop worker and swapoff stuck in D state for good, kswapd with
# them. While the swap is on, the kernel may page anything out to it at any
# time (a test run fills memory with page cache), so a test that checks the
# device's content must allow for that: a small SWAP_KIB, checked apart.
sb_swap_create() {
    local _sb_size=${1:-} _sb_kib=${2:-} _sb_var=${3:-} _sb_base=${SB_TMP:-/tmp} _sb_dev
    [[ $_sb_kib =~ ^[1-9][0-9]*$ && -n $_sb_var ]] || sb_fail "usage: sb_swap_create SIZE_MIB SWAP_KIB VAR"
    _sb_check_var "$_sb_var"
    SB_WHY=
    if [[ $(stat -f -c %T -- "$_sb_base" 2>/dev/null) == tmpfs ]]; then
        SB_WHY="$_sb_base is a tmpfs, and a swap area must not live in RAM"
        return 1
    fi
    SB_LOOP_DIR=$_sb_base sb_loop_create "$_sb_size" SB_LAST_LOOP
    _sb_dev=$SB_LAST_LOOP
    if ! mkswap "$_sb_dev" "$_sb_kib" >/dev/null 2>&1; then
        SB_WHY="mkswap $_sb_dev $_sb_kib failed"
        return 1
    fi
    _sb_journal_add S "$_sb_dev"
    if ! swapon -- "$_sb_dev" 2>/dev/null; then
        SB_WHY="this kernel refuses swap on a loop device"
        return 1
    fi
    _sb_set "$_sb_var" "$_sb_dev"
}

# sb_swap_on DEV: return 0 if DEV is a swap area in use (listed in
# /proc/swaps), else 1.
sb_swap_on() {
    awk -v d="${1:-}" 'NR > 1 && $1 == d { found = 1 } END { exit !found }' /proc/swaps 2>/dev/null
}

# sb_sysctl NAME VALUE: set the kernel setting NAME (vm.swappiness, say) to
# VALUE; the value it had is written back at cleanup (_sb_set_restored).
sb_sysctl() {
    local name=${1:-} value=${2:-}
    [[ -n $name && -n $value ]] || sb_fail "usage: sb_sysctl NAME VALUE"
    _sb_set_restored "/proc/sys/${name//.//}" "$value" sb_sysctl
}

# sb_readahead DEV KIB: set the read-ahead of the whole block device DEV to
# KIB KiB; the value it had is written back at cleanup. A loop device starts
# with 2560 KiB here and keeps what its last user set, where a card or a
# disk has 128.
sb_readahead() {
    local dev=${1:-} kib=${2:-}
    [[ -b $dev && $kib =~ ^[0-9]+$ ]] || sb_fail "usage: sb_readahead DEV KIB (got '$dev' '$kib')"
    [[ -d /sys/block/${dev##*/} ]] || sb_fail "sb_readahead: $dev is not a whole device"
    _sb_set_restored "/sys/block/${dev##*/}/queue/read_ahead_kb" "$kib" sb_readahead
}

# _sb_set_restored FILE VALUE CALLER: write VALUE to the kernel's FILE and
# journal its old value, written back at cleanup. Only a file of one value
# (the journal's fields are separated by tabs, as the values of
# kernel.printk are).
_sb_set_restored() {
    local file=$1 value=$2 caller=$3 old
    [[ -w $file ]] || sb_fail "$caller: cannot write $file"
    old=$(<"$file")
    [[ $old != *[[:space:]]* ]] || sb_fail "$caller: $file holds several values ('$old'); not supported"
    _sb_ensure_init
    _sb_journal_add Y "$file" "$old"
    _sb_write "$file" "$value" || sb_fail "$caller: writing '$value' to $file: $_SB_ERR"
}

# sb_cleanup: undo everything registered, newest first within each kind.
#  1. ask the test's background jobs to stop (SIGTERM),
#  2. reset throttle rules, so the flushes below run at full speed (and a
#     test killed by meson is cleaned up within its 0.5 s grace period),
#  3. wait up to 3 s for those jobs, then SIGKILL what is left,
#  4. end the processes started with sb_background that are still running,
#  5. turn off the swap areas of sb_swap_create and restore the settings
#     of sb_sysctl and sb_readahead,
#  6. unmount: 20 tries 0.1 s apart, then `umount -l` as a last resort,
#  7. detach every loop device that is backed by one of our files,
#  8. move the process back to its cgroup, remove our cgroup v2 child and
#     turn off the controllers we enabled,
#  9. remove the directories of sb_tmpdir_in, then files and directories in
#     the working directory, then the working directory.
# A step that fails stays in the journal and is retried by the next call or
# by the guardian. It only warns on stderr: it never changes the test's exit
# status. It can be called again at any time and then does nothing; a later
# fixture call starts a new working directory.
sb_cleanup() {
    local -
    set +e +u +E
    set +o pipefail
    [[ -n ${_SB_ROOT:-} && -d ${_SB_ROOT:-} ]] || return 0
    # A shell whose current directory is in a mount would keep it busy.
    [[ $PWD/ == "$_SB_ROOT"/* ]] && cd /
    _sb_run_journal owner
    _SB_CG_READY=
    return 0
}

# --------------------------------------------------------------------------
# Checks

# sb_checksum PATH [VAR]: sha256 (hex) of the content of a file or block
# device. Sets VAR, or prints it when no VAR is given.
sb_checksum() {
    local _sb_p=${1:-} _sb_var=${2:-} _sb_sum
    [[ -n $_sb_p ]] || sb_fail "usage: sb_checksum PATH [VAR]"
    _sb_check_var "$_sb_var"
    [[ -r $_sb_p ]] || sb_fail "sb_checksum: cannot read $_sb_p"
    _sb_sum=$(sha256sum <"$_sb_p" | cut -d' ' -f1) || sb_fail "sb_checksum: reading $_sb_p failed"
    [[ $_sb_sum =~ ^[0-9a-f]{64}$ ]] || sb_fail "sb_checksum: no sha256 for $_sb_p"
    _sb_set "$_sb_var" "$_sb_sum"
}

# sb_within VALUE TRUTH PCT: return 0 if |VALUE - TRUTH| <= PCT% of |TRUTH|
# (in floating point, with awk), else 1. Prints
# "VALUE vs TRUTH (±PCT%): ok" or "... : OUT OF RANGE" on stdout.
sb_within() {
    local re='^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$' a verdict=ok
    [[ $# -eq 3 ]] || sb_fail "usage: sb_within VALUE TRUTH PCT"
    for a in "$@"; do
        [[ $a =~ $re ]] || sb_fail "sb_within: not a number: '$a'"
    done
    if ! LC_ALL=C awk -v v="$1" -v t="$2" -v p="$3" 'BEGIN {
            d = v - t; if (d < 0) d = -d
            a = t; if (a < 0) a = -a
            exit !(d <= a * p / 100 * (1 + 1e-9) + 1e-12) }'; then
        verdict="OUT OF RANGE"
    fi
    printf '%s vs %s (±%s%%): %s\n' "$1" "$2" "$3" "$verdict"
    [[ $verdict == ok ]]
}

# --------------------------------------------------------------------------
# Internals (not part of the API)

_sb_log() { printf 'lib.sh: %s\n' "$*" >&2; }

# _sb_check_var NAME: NAME is empty or a variable name this library can set.
_sb_check_var() {
    [[ -z $1 ]] && return 0
    [[ $1 =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || sb_fail "not a variable name: '$1'"
    [[ $1 != _sb_* ]] || sb_fail "variable names starting with _sb_ are reserved by lib.sh: '$1'"
}

# _sb_set NAME VALUE: set NAME in the caller's scope, or print VALUE.
_sb_set() {
    if [[ -n $1 ]]; then
        printf -v "$1" '%s' "$2"
    else
        printf '%s\n' "$2"
    fi
}

# _sb_write FILE STRING: write one line; on failure return 1 with the reason
# in $_SB_ERR.
_sb_write() {
    _SB_ERR=$({ printf '%s\n' "$2" >"$1"; } 2>&1) && return 0
    _SB_ERR=${_SB_ERR##*: }
    [[ -n $_SB_ERR ]] || _SB_ERR="write failed"
    return 1
}

_sb_has_word() { [[ -r $2 && " $(<"$2") " == *" $1 "* ]]; }

_sb_has_line() { [[ -r $1 ]] && grep -Fxq -- "$2" "$1"; }

# _sb_majmin DEV: print MAJ:MIN, spaces trimmed.
_sb_majmin() {
    local mm
    mm=$(lsblk -dno MAJ:MIN "$1" 2>/dev/null | tr -d ' \t')
    [[ $mm =~ ^[0-9]+:[0-9]+$ ]] || mm=$(stat -Lc '%Hr:%Lr' "$1" 2>/dev/null)
    [[ $mm =~ ^[0-9]+:[0-9]+$ ]] || return 1
    printf '%s\n' "$mm"
}

# _sb_backing_dir SIZE_MIB CALLER: set _SB_BDIR to the directory for a
# backing file of SIZE_MIB MiB: a new one in SB_LOOP_DIR if set, else in
# /dev/shm when that is a tmpfs with room for it and 1 GiB more (both removed
# at cleanup), else the working directory.
_sb_backing_dir() {
    local base=${SB_LOOP_DIR:-} free
    if [[ -z $base && $(stat -f -c %T /dev/shm 2>/dev/null) == tmpfs ]]; then
        free=$(($(stat -f -c '%a * %S' /dev/shm) / 1048576))
        ((free > $1 + 1024)) && base=/dev/shm
    fi
    _SB_BDIR=$_SB_ROOT
    [[ -n $base ]] || return 0
    _SB_BDIR=$(mktemp -d "${base%/}/storbench-test.XXXXXX") || sb_fail "$2: mktemp failed in $base"
    _sb_journal_add D "$_SB_BDIR"
}

# _sb_fuse_option CALLER OPTION: check one sb_fuse_card option and set
# _SB_FUSE_OPT to it as sb_fakedisk takes it (sizes in bytes); on a bad one
# return 1 with the reason in _SB_ERR.
_sb_fuse_option() {
    local caller=$1 o=$2 v f nums=() n
    v=${o#*=}
    case $o in
        cliff=*)
            IFS=: read -r -a f <<<"$v"
            if [[ ${#f[@]} -eq 3 ]]; then
                for n in "${f[@]}"; do
                    n=$(_sb_number "$n") || { nums=(); break; }
                    nums+=("$n")
                done
            fi
            if [[ ${#nums[@]} -ne 3 || ${nums[1]} == 0 || ${nums[2]} == 0 ]]; then
                _SB_ERR="$caller: bad option '$o' (cliff=N:FAST:SLOW: bytes, bytes/s, bytes/s, e.g. cliff=64M:40M:8M)"
                return 1
            fi
            _SB_FUSE_OPT="cliff=${nums[0]}:${nums[1]}:${nums[2]}"
            ;;
        cliff_recover=*)
            [[ $v =~ ^[0-9]+([.][0-9]+)?$ && ! $v =~ ^0*([.]0*)?$ ]] || {
                _SB_ERR="$caller: bad option '$o' (cliff_recover=SECONDS, more than 0)"
                return 1
            }
            _SB_FUSE_OPT=$o
            ;;
        boundary=*)
            n=$(_sb_number "${v%%:*}") || n=0
            if [[ $v != *:* || $n == 0 || $((n & (n - 1))) != 0 || ! ${v#*:} =~ ^[0-9]+$ ]]; then
                _SB_ERR="$caller: bad option '$o' (boundary=B:COST_US, B a power of two: boundary=4M:2000)"
                return 1
            fi
            _SB_FUSE_OPT="boundary=$n:$((10#${v#*:}))"
            ;;
        read_us=*)
            [[ $v =~ ^[0-9]+$ ]] || {
                _SB_ERR="$caller: bad option '$o' (read_us=MICROSECONDS)"
                return 1
            }
            _SB_FUSE_OPT="read_us=$((10#$v))"
            ;;
        open_aus=*)
            IFS=: read -r -a f <<<"$v"
            n=
            [[ ${#f[@]} -eq 3 ]] && n=$(_sb_number "${f[1]}") || n=
            if [[ -z $n || $n == 0 || ! ${f[0]} =~ ^[0-9]+$ || ! ${f[2]} =~ ^[0-9]+$ ]] ||
                ((10#${f[0]} < 1 || 10#${f[0]} > 64)); then
                _SB_ERR="$caller: bad option '$o' (open_aus=N:AU:COST_US, N 1 to 64: open_aus=4:4M:2000)"
                return 1
            fi
            _SB_FUSE_OPT="open_aus=$((10#${f[0]})):$n:$((10#${f[2]}))"
            ;;
        eio_read=* | eio_write=*)
            [[ $o =~ ^eio_(read|write)=[0-9]+-[0-9]+(:[0-9]+-[0-9]+)*$ ]] || {
                _SB_ERR="$caller: bad option '$o' (eio_read=START-END or eio_write=START-END, in bytes)"
                return 1
            }
            _SB_FUSE_OPT=$o
            ;;
        *)
            _SB_ERR="$caller: unknown option '$o' (cliff=, cliff_recover=, boundary=, read_us=, open_aus=, eio_read=, eio_write=)"
            return 1
            ;;
    esac
    return 0
}

# _sb_fuse_start CALLER SIZE_MIB BACKING_MIB BACKING_DIR DIO VAR OPTION...:
# the work of sb_fuse_create and sb_fuse_card, with OPTIONs checked and in
# sb_fakedisk's form; DIO non-empty attaches the loop device with
# --direct-io=on.
_sb_fuse_start() {
    local _sb_caller=$1 _sb_size=$2 _sb_bsize=$3 _sb_bdir=$4 _sb_dio=$5 _sb_var=$6
    local _sb_mp _sb_back _sb_dev _sb_pid _sb_opts _sb_o _sb_t
    shift 6
    sb_require_fuse
    _sb_ensure_init
    _sb_opts="size=$((_sb_size * 1048576))"
    for _sb_o in "$@"; do
        _sb_opts+=",$_sb_o"
    done
    _sb_back=$(mktemp "$_sb_bdir/fuse.XXXXXX.img") || sb_fail "$_sb_caller: mktemp failed in $_sb_bdir"
    _sb_journal_add P "$_sb_back"
    truncate -s "${_sb_bsize}M" "$_sb_back" || sb_fail "$_sb_caller: truncate -s ${_sb_bsize}M $_sb_back failed"
    _sb_mp=$(mktemp -d "$_SB_ROOT/fuse.XXXXXX") || sb_fail "$_sb_caller: mktemp failed in $_SB_ROOT"
    _sb_journal_add P "$_sb_mp"
    _sb_journal_add P "$_sb_mp.log"
    _sb_journal_add P "$_sb_mp.ctl"
    printf '%s\n' "$@" >"$_sb_mp.ctl"
    setsid "$SB_FAKEDISK" "$_sb_mp" -f -s -o "$_sb_opts,backing=$_sb_back,control=$_sb_mp.ctl" \
        </dev/null >"$_sb_mp.log" 2>&1 &
    _sb_pid=$!
    disown "$_sb_pid" 2>/dev/null || true
    _sb_journal_add F "$_sb_mp" "$_sb_pid"
    for ((_sb_t = 0; _sb_t < 50; _sb_t++)); do
        mountpoint -q -- "$_sb_mp" && break
        kill -0 "$_sb_pid" 2>/dev/null || sb_fail "sb_fakedisk ended at once: $(<"$_sb_mp.log")"
        sleep 0.1
    done
    mountpoint -q -- "$_sb_mp" || sb_fail "sb_fakedisk did not mount $_sb_mp within 5 s: $(<"$_sb_mp.log")"
    _sb_journal_add L "$_sb_mp/disk"
    _sb_dev=$(losetup -f --show ${_sb_dio:+--direct-io=on} "$_sb_mp/disk" 2>"$_SB_ROOT/losetup.err") ||
        sb_fail "losetup -f --show ${_sb_dio:+--direct-io=on }$_sb_mp/disk: $(<"$_SB_ROOT/losetup.err")"
    [[ $_sb_dev == /dev/* && -b $_sb_dev ]] || sb_fail "losetup printed '$_sb_dev', not a block device"
    if [[ -n $_sb_dio && $(cat "/sys/block/${_sb_dev##*/}/loop/dio" 2>/dev/null) != 1 ]]; then
        _sb_log "warning: direct I/O is off on $_sb_dev over $_sb_mp/disk (this kernel's FUSE does not take it); the FUSE file still caches nothing"
    fi
    _sb_settle
    SB_FUSE_BACKING=$_sb_back
    SB_FUSE_FILE=$_sb_mp/disk
    SB_FUSE_CONTROL=$_sb_mp.ctl
    SB_FUSE_STATS=$_sb_mp/stats
    _sb_set "$_sb_var" "$_sb_dev"
}

# _sb_number N[K|M|G]: print the integer.
_sb_number() {
    [[ $1 =~ ^([0-9]+)([kKmMgG]?)$ ]] || return 1
    local n=$((10#${BASH_REMATCH[1]}))
    case ${BASH_REMATCH[2]} in
        k | K) n=$((n << 10)) ;;
        m | M) n=$((n << 20)) ;;
        g | G) n=$((n << 30)) ;;
    esac
    printf '%s\n' "$n"
}

# _sb_settle: let udev finish probing new devices, if udev runs here (its
# blkid reads would otherwise compete with a measurement).
_sb_settle() {
    if [[ -S /run/udev/control ]] && command -v udevadm >/dev/null 2>&1; then
        udevadm settle -t 10 >/dev/null 2>&1 || true
    fi
}

# Journal: one change per line, fields separated by tabs:
#   T FILE MAJ:MIN UNDO       throttle rule: write UNDO to FILE
#   M MOUNTPOINT              unmount
#   S DEV                     swapoff (before L: swap keeps a loop device busy)
#   Y FILE VALUE              write VALUE back to FILE (a /proc/sys setting)
#   L BACKING_FILE            detach every loop device backed by it
#   F MOUNTPOINT PID          unmount a FUSE fixture, end its program PID
#   C move PROCS_FILE         move this process back (test shell only)
#   C cgdir DIR PROCS_FILE    move back to PROCS_FILE, rmdir DIR
#   C subtree CGDIR -CTRL     write -CTRL to CGDIR/cgroup.subtree_control
#   K PID START               end process PID if it still has start time START
#   D PATH                    rm -rf (a directory named storbench-test.* only)
#   P PATH                    rm -rf (inside the working directory only)
_sb_journal_add() {
    local IFS=$'\t'
    { printf '%s\n' "$*" >>"$_SB_JOURNAL"; } 2>/dev/null ||
        sb_fail "cannot write the cleanup journal $_SB_JOURNAL"
}

_sb_journal_add_once() {
    local IFS=$'\t'
    _sb_has_line "$_SB_JOURNAL" "$*" || _sb_journal_add "$@"
}

# _sb_init: create the working directory and journal, start the guardian.
_sb_init() {
    local base=${SB_TMP:-/tmp}
    _SB_ROOT=$(mktemp -d "$base/storbench-test.XXXXXX" 2>/dev/null) ||
        sb_fail "cannot create a working directory in $base (set SB_TMP to a writable directory)"
    chmod 755 "$_SB_ROOT" 2>/dev/null || true
    _SB_JOURNAL=$_SB_ROOT/journal
    : >"$_SB_JOURNAL" || sb_fail "cannot create $_SB_JOURNAL"
    _SB_CG_READY=
    _sb_start_guardian
}

_sb_ensure_init() {
    [[ -n ${_SB_ROOT:-} && -d $_SB_ROOT && -f ${_SB_JOURNAL:-} ]] || _sb_init
}

# _sb_proc PID: set _SB_PSTATE and _SB_PSTART (state, start time in ticks)
# from /proc/PID/stat; return 1 if there is no such process.
_sb_proc() {
    local line rest f
    { read -r line <"/proc/$1/stat"; } 2>/dev/null || return 1
    rest=${line##*) }
    read -r -a f <<<"$rest"
    _SB_PSTATE=${f[0]}
    _SB_PSTART=${f[19]}
}

_sb_start_guardian() {
    local start=0 runner=()
    _sb_proc "$_SB_OWNER" && start=$_SB_PSTART
    command -v setsid >/dev/null 2>&1 && runner=(setsid)
    "${runner[@]}" bash "$_SB_LIB" --guardian "$_SB_OWNER" "$start" "$_SB_ROOT" \
        </dev/null >/dev/null 2>&1 &
    _SB_GUARDIAN=$!
    disown "$_SB_GUARDIAN" 2>/dev/null || true
}

# _sb_guardian OWNER START ROOT: wait until OWNER (whose start time is
# START) is gone or ROOT has been removed; then replay the journal.
_sb_guardian() {
    local owner=$1 start=$2 root=$3 log
    trap '' INT HUP
    cd / || exit 1
    _SB_ROOT=$root
    _SB_JOURNAL=$root/journal
    while [[ -d $root ]]; do
        _sb_proc "$owner" || break
        [[ $_SB_PSTATE != Z && ($start == 0 || $_SB_PSTART == "$start") ]] || break
        sleep 0.2
    done
    [[ -d $root ]] || exit 0
    log=$root.cleanup.log
    exec 2>>"$log"
    _sb_log "$(date '+%F %T') test process $owner has ended; undoing what its journal still lists"
    _sb_run_journal guardian
    if [[ -d $root ]]; then
        _sb_log "some changes could not be undone; journal left in $root"
    else
        rm -f -- "$log"
    fi
    exit 0
}

# _sb_run_journal owner|guardian: the work of sb_cleanup.
_sb_run_journal() {
    local role=$1 ents=() i k e jobs_=() p n
    if [[ -f $_SB_JOURNAL ]]; then
        mapfile -t ents <"$_SB_JOURNAL"
    fi
    if [[ $role == owner ]]; then
        mapfile -t jobs_ < <(jobs -rp)
        for p in "${jobs_[@]}"; do
            [[ $p == "${_SB_GUARDIAN:-}" ]] && continue
            kill -TERM "$p" 2>/dev/null
        done
    fi
    for k in T W K S Y M L F C D P; do
        if [[ $k == P ]]; then
            # Backing files and mount points stay until all else is undone,
            # so that a retry can still find and undo it.
            for e in "${ents[@]}"; do
                [[ -z $e || $e == P$'\t'* ]] && continue
                _sb_log "cleanup incomplete; left in $_SB_JOURNAL: ${e//$'\t'/ }"
                return 1
            done
        fi
        if [[ $k == W ]]; then
            # Jobs stopped by SIGTERM above: give them 3 s, then SIGKILL.
            for ((n = 0; n < 30; n++)); do
                _sb_any_alive "${jobs_[@]}" || break
                sleep 0.1
            done
            for p in "${jobs_[@]}"; do
                [[ $p == "${_SB_GUARDIAN:-}" ]] && continue
                kill -KILL "$p" 2>/dev/null
            done
            for p in "${jobs_[@]}"; do
                [[ $p == "${_SB_GUARDIAN:-}" ]] && continue
                wait "$p" 2>/dev/null
            done
            continue
        fi
        for ((i = ${#ents[@]} - 1; i >= 0; i--)); do
            e=${ents[i]}
            [[ $e == "$k"$'\t'* ]] || continue
            if _sb_undo "$role" "$e"; then
                ents[i]=
                _sb_journal_rewrite "${ents[@]}"
            fi
        done
    done
    for e in "${ents[@]}"; do
        if [[ -n $e ]]; then
            _sb_log "cleanup incomplete; left in $_SB_JOURNAL: ${e//$'\t'/ }"
            return 1
        fi
    done
    if [[ -n $(_sb_mounts_under "$_SB_ROOT") ]]; then
        _sb_log "cleanup incomplete: still mounted under $_SB_ROOT: $(_sb_mounts_under "$_SB_ROOT")"
        return 1
    fi
    rm -rf --one-file-system -- "$_SB_ROOT" 2>/dev/null ||
        { _sb_log "cannot remove $_SB_ROOT"; return 1; }
    return 0
}

_sb_any_alive() {
    local p
    for p in "$@"; do
        [[ $p == "${_SB_GUARDIAN:-}" ]] && continue
        kill -0 "$p" 2>/dev/null && return 0
    done
    return 1
}

_sb_journal_rewrite() {
    local e
    for e in "$@"; do
        [[ -n $e ]] && printf '%s\n' "$e"
    done >"$_SB_JOURNAL.new" 2>/dev/null && mv -f -- "$_SB_JOURNAL.new" "$_SB_JOURNAL" 2>/dev/null
}

# _sb_loops_of FILE: print the loop devices backed by FILE (even if FILE
# has been deleted since).
_sb_loops_of() {
    losetup -l -n -O NAME,BACK-FILE 2>/dev/null |
        awk -v f="$1" '{ n = $1; sub(/^[^ ]+ +/, "")
            if ($0 == f || $0 == f " (deleted)") print n }'
}

_sb_mounts_under() {
    awk -v r="$1/" 'index($2, r) == 1 { print $2 }' /proc/mounts
}

# _sb_undo owner|guardian ENTRY: undo one journal entry; 0 when it is undone
# (or there was nothing to undo).
_sb_undo() {
    local role=$1 f=() t dev devs=() line
    IFS=$'\t' read -r -a f <<<"$2"
    case ${f[0]} in
        T) # f: T FILE MAJ:MIN UNDO
            [[ -e ${f[1]} ]] || return 0
            _sb_write "${f[1]}" "${f[3]}"
            # The rule is gone when no line for MAJ:MIN is left (v1), or
            # when what is left is all "max" (v2).
            while IFS= read -r line; do
                [[ $line == "${f[2]} "* ]] || continue
                [[ $line =~ [a-z]+=[0-9] || ${f[1]} != */io.max ]] || continue
                _sb_log "cannot reset the throttle rule '${line}' in ${f[1]}: ${_SB_ERR:-}"
                return 1
            done <"${f[1]}"
            return 0
            ;;
        M) # f: M MOUNTPOINT
            mountpoint -q -- "${f[1]}" 2>/dev/null || return 0
            for ((t = 0; t < 20; t++)); do
                umount -- "${f[1]}" 2>/dev/null && return 0
                mountpoint -q -- "${f[1]}" 2>/dev/null || return 0
                sleep 0.1
            done
            _sb_log "${f[1]} stays busy; unmounting it lazily (umount -l)"
            umount -l -- "${f[1]}" 2>/dev/null && return 0
            mountpoint -q -- "${f[1]}" 2>/dev/null || return 0
            _sb_log "cannot unmount ${f[1]}"
            return 1
            ;;
        L) # f: L BACKING_FILE
            for ((t = 0; t < 20; t++)); do
                mapfile -t devs < <(_sb_loops_of "${f[1]}")
                [[ ${#devs[@]} -eq 0 ]] && return 0
                for dev in "${devs[@]}"; do
                    losetup -d "$dev" 2>/dev/null
                done
                sleep 0.1
            done
            _sb_log "cannot detach ${devs[*]} (backed by ${f[1]})"
            return 1
            ;;
        F) # f: F MOUNTPOINT PID (after L: a loop device over it keeps it busy)
            for ((t = 0; t < 20; t++)); do
                mountpoint -q -- "${f[1]}" 2>/dev/null || break
                fusermount3 -u -- "${f[1]}" 2>/dev/null || umount -- "${f[1]}" 2>/dev/null
                mountpoint -q -- "${f[1]}" 2>/dev/null || break
                sleep 0.1
            done
            if mountpoint -q -- "${f[1]}" 2>/dev/null; then
                _sb_log "${f[1]} stays busy; unmounting it lazily (umount -l)"
                umount -l -- "${f[1]}" 2>/dev/null
            fi
            # Unmounted, the program ends by itself; end it if it does not
            # (only if that pid is still our program, serving this mount).
            for ((t = 0; t < 30; t++)); do
                [[ -r /proc/${f[2]}/cmdline ]] || break
                [[ $(tr '\0' ' ' <"/proc/${f[2]}/cmdline" 2>/dev/null) == *"${f[1]}"* ]] || break
                ((t == 20)) && kill -TERM "${f[2]}" 2>/dev/null
                sleep 0.1
            done
            mountpoint -q -- "${f[1]}" 2>/dev/null && { _sb_log "cannot unmount ${f[1]}"; return 1; }
            return 0
            ;;
        C)
            case ${f[1]} in
                move) # f: C move PROCS_FILE (back to the original cgroup)
                    [[ $role == owner ]] || return 0
                    _sb_write "${f[2]}" "$BASHPID" || true
                    return 0
                    ;;
                cgdir) # f: C cgdir DIR PROCS_FILE
                    [[ -d ${f[2]} ]] || return 0
                    [[ $role == owner ]] && { _sb_write "${f[3]}" "$BASHPID" || true; }
                    for ((t = 0; t < 20; t++)); do
                        rmdir -- "${f[2]}" 2>/dev/null && return 0
                        sleep 0.1
                    done
                    _sb_log "cannot remove cgroup ${f[2]}"
                    return 1
                    ;;
                subtree) # f: C subtree CGDIR -CTRL
                    _sb_write "${f[2]}/cgroup.subtree_control" "${f[3]}" && return 0
                    _sb_log "cannot write ${f[3]} to ${f[2]}/cgroup.subtree_control: $_SB_ERR"
                    return 1
                    ;;
            esac
            return 0
            ;;
        K) # f: K PID START (a process of the test: end it)
            _sb_proc "${f[1]}" || return 0
            [[ $_SB_PSTATE != Z && (${f[2]} == 0 || $_SB_PSTART == "${f[2]}") ]] || return 0
            kill -TERM "${f[1]}" 2>/dev/null
            for ((t = 0; t < 30; t++)); do
                _sb_proc "${f[1]}" && [[ $_SB_PSTATE != Z ]] || return 0
                sleep 0.1
            done
            kill -KILL "${f[1]}" 2>/dev/null
            return 0
            ;;
        S) # f: S DEV (a swap area of the test: turn it off)
            sb_swap_on "${f[1]}" || return 0
            swapoff -- "${f[1]}" 2>/dev/null && return 0
            _sb_log "cannot turn off swap on ${f[1]}"
            return 1
            ;;
        Y) # f: Y FILE VALUE (a kernel setting: write its old value back)
            _sb_write "${f[1]}" "${f[2]}" && return 0
            _sb_log "cannot write '${f[2]}' back to ${f[1]}: $_SB_ERR"
            return 1
            ;;
        D) # f: D PATH (a directory named storbench-test.*, anywhere)
            [[ ${f[1]##*/} == storbench-test.* ]] || return 0
            [[ -e ${f[1]} ]] || return 0
            if [[ -n $(_sb_mounts_under "${f[1]}") ]]; then
                _sb_log "not removing ${f[1]}: something is mounted there"
                return 1
            fi
            rm -rf --one-file-system -- "${f[1]}" 2>/dev/null && return 0
            _sb_log "cannot remove ${f[1]}"
            return 1
            ;;
        P) # f: P PATH (only inside the working directory)
            [[ ${f[1]} == "$_SB_ROOT"/* ]] || return 0
            [[ -e ${f[1]} || -L ${f[1]} ]] || return 0
            if [[ -n $(_sb_mounts_under "${f[1]}") ]] || mountpoint -q -- "${f[1]}" 2>/dev/null; then
                _sb_log "not removing ${f[1]}: something is mounted there"
                return 1
            fi
            rm -rf --one-file-system -- "${f[1]}" 2>/dev/null && return 0
            _sb_log "cannot remove ${f[1]}"
            return 1
            ;;
    esac
    return 0
}

_SB_LIB=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)/${BASH_SOURCE[0]##*/}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    # Run as a program: only the guardian mode exists.
    if [[ ${1:-} == --guardian && $# -eq 4 ]]; then
        _sb_guardian "$2" "$3" "$4"
    fi
    echo "usage: source this file from a bash test (see its header)" >&2
    exit 2
fi

# Sourced: set up once per process, and install the traps.
if [[ ${_SB_LOADED:-} != "$BASHPID" ]]; then
    _SB_LOADED=$BASHPID
    _SB_OWNER=$BASHPID
    _SB_ROOT=
    _SB_GUARDIAN=
    _SB_CG_READY=
    _sb_init
    trap 'sb_cleanup' EXIT
    trap '_sb_on_signal INT 2' INT
    trap '_sb_on_signal TERM 15' TERM
    trap '_sb_on_signal HUP 1' HUP
fi

# _sb_on_signal NAME NUMBER: clean up, then exit with 128+NUMBER like a shell
# killed by that signal. Further INT/TERM/HUP are ignored meanwhile.
_sb_on_signal() {
    trap '' INT TERM HUP
    printf '%s: caught SIG%s, cleaning up\n' "${0##*/}" "$1" >&2
    sb_cleanup
    trap - EXIT
    exit $((128 + $2))
}
