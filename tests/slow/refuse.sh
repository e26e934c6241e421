#!/usr/bin/env bash
# refuse.sh: targets storbench must not write to, and the device paths it
# may use.
#
# Each refusal is one line on stderr naming the reason, a non-zero exit, no
# file left behind, and the device's content byte-for-byte unchanged
# (sha256 before and after): a read-only filesystem; a block device without
# --destructive; a mounted device with --destructive; a device whose
# partition is mounted, with --destructive; a device in use as swap. Every
# refusal of a device is checked for each command that can write: sweep
# --destructive, zcav -w --destructive, verify --destructive, job
# --destructive and card (its claims, --cliff, and --geometry's open-AU
# writes) --destructive (with --force, so that the rule refused is the one
# named). Then
# what is allowed: reading an unmounted device in place (content unchanged)
# and, with --destructive, writing to it. (A device that holds the root
# filesystem cannot be offered up here: tests/unit/test_target.c checks that
# rule on fake /proc and /sys trees.)
set -euo pipefail
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

sb_require_root
sb_require_bin
sb_require_loop
sb_tmpdir out

quick=(--bs 64k,1m --min-time 0.1s --max-time 0.5s --file-size 8m -q)

# swapped_out DEV: the pages the kernel has swapped out since boot
# (/proc/vmstat pswpout) when DEV is a swap area in use, else 0.
swapped_out() {
    sb_swap_on "$1" || { echo 0; return; }
    awk '$1 == "pswpout" { print $2 }' /proc/vmstat
}

# refused DEVICE_TO_CHECKSUM PATTERN COMMAND ARGS...: runs storbench COMMAND
# ARGS, which must fail with one stderr line matching PATTERN, print
# nothing, and leave the device unchanged.
#
# A swap area in use is the kernel's to write: it swaps pages out to it
# whenever memory is short, and a long test run fills memory with page cache.
# So when the content of a swap area changed and the kernel swapped pages out
# meanwhile, the change proves nothing either way, and the command is run
# and checked again (three tries; a failure says what the kernel did).
refused() {
    local check=$1 pattern=$2 before after rc swap0 swap1 tries=0
    shift 2
    while :; do
        rc=0
        sync -- "$check"
        sb_checksum "$check" before
        swap0=$(swapped_out "$check")
        "$SB_BIN" "$@" >"$out/stdout" 2>"$out/stderr" || rc=$?
        sync -- "$check"
        sb_checksum "$check" after
        swap1=$(swapped_out "$check")
        if [[ $before == "$after" || $swap1 == "$swap0" ]] || ((++tries == 3)); then
            break
        fi
        echo "note: $*: the content changed while the kernel swapped out $((swap1 - swap0)) pages; checking again"
    done
    echo "$*: exit $rc: $(cat "$out/stderr")"
    [[ $rc -ne 0 ]] || sb_fail "$*: succeeded; it must be refused"
    [[ $(wc -l <"$out/stderr") -eq 1 ]] || sb_fail "$*: expected one line on stderr"
    grep -Eq "^storbench: .*$pattern" "$out/stderr" || sb_fail "$*: stderr does not match '$pattern'"
    [[ ! -s $out/stdout ]] || sb_fail "$*: printed results for a refused target"
    if [[ $before != "$after" ]]; then
        [[ $swap1 == "$swap0" ]] || sb_fail "$*: the content of $check changed in $tries tries," \
            "each while the kernel swapped pages out to it ($((swap1 - swap0)) pages the last time)"
        sb_fail "$*: the content of $check changed"
    fi
}

# expect_refusal DEVICE_TO_CHECKSUM PATTERN ARGS...: storbench sweep ARGS is
# refused (see refused).
expect_refusal() {
    local check=$1 pattern=$2
    shift 2
    refused "$check" "$pattern" sweep "${quick[@]}" "$@"
}

# expect_write_refusals DEVICE_TO_CHECKSUM PATTERN DEVICE: every command that
# can write is refused on DEVICE with --destructive.
expect_write_refusals() {
    local check=$1 pattern=$2 dev=$3
    refused "$check" "$pattern" sweep "${quick[@]}" --destructive "$dev"
    refused "$check" "$pattern" zcav -w --destructive -b 1 -q --no-save "$dev"
    refused "$check" "$pattern" verify --destructive -q --no-save "$dev"
    refused "$check" "$pattern" verify --destructive --write-only -q --no-save "$dev"
    refused "$check" "$pattern" job --destructive --force -q --no-save --name=r --rw=write \
        --bs=4k --size=1m "--filename=$dev"
    refused "$check" "$pattern" card --destructive --force -q --no-save "$dev"
    refused "$check" "$pattern" card --cliff --destructive --force -q --no-save "$dev"
    refused "$check" "$pattern" card --geometry --destructive --force -q --no-save "$dev"
}

# A read-only filesystem.
sb_loop_create 64 dev
sb_mkfs "$dev" ext4
sb_mount "$dev" ro_mnt ro
expect_refusal "$dev" "read-only filesystem" "$ro_mnt"
[[ -z $(find "$ro_mnt" -name 'storbench-*') ]] || sb_fail "a file appeared on the read-only filesystem"

# A mounted device, with and without --destructive. Mounted read-only, as
# the partition below: a read-write ext4 writes its superblock and journal
# by itself now and then, which would change the checksum whatever
# storbench does (the rule refuses any mount alike).
sb_loop_create 64 mdev
sb_mkfs "$mdev" ext4
sb_mount "$mdev" m_mnt ro
expect_refusal "$mdev" "needs --destructive" "$mdev"
refused "$mdev" "needs --destructive" verify -q --no-save "$mdev"
refused "$mdev" "add --destructive" zcav -w -b 1 -q --no-save "$mdev"
refused "$mdev" "needs --destructive" card -q --no-save "$mdev"
refused "$mdev" "needs --destructive" card --cliff -q --no-save "$mdev"
expect_write_refusals "$mdev" "is mounted on $m_mnt" "$mdev"
[[ -z $(find "$m_mnt" -name 'storbench-*') ]] || sb_fail "a file appeared on the mounted filesystem"

# A device whose partition is mounted.
sb_loop_create_partitioned 64 pdev
sb_mkfs "${pdev}p1" ext4
sb_mount "${pdev}p1" p_mnt ro
expect_write_refusals "$pdev" "partition ${pdev##*/}p1 is mounted" "$pdev"

# A device in use as swap (where this kernel allows swap on a loop device).
# The kernel may page anything out to it meanwhile, so: the swap area is the
# device's first 64 KiB (15 pages); with swappiness 0 the kernel swaps only
# when memory runs out; and refused checks again when it swapped anyway.
if sb_swap_create 64 64 sdev; then
    sb_sysctl vm.swappiness 0
    expect_write_refusals "$sdev" "in use as swap" "$sdev"
else
    echo "note: $SB_WHY; the swap case was not run"
fi

# An unmounted device: reading it in place leaves it as it was.
sb_loop_create 64 fdev
dd if=/dev/urandom of="$fdev" bs=1M count=64 oflag=direct status=none
sb_checksum "$fdev" before
"$SB_BIN" sweep "${quick[@]}" --only read -f csv "$fdev" >"$out/read.csv"
sb_checksum "$fdev" after
[[ $before == "$after" ]] || sb_fail "a read-only sweep changed the device"
grep -q ",read,1048576,.*,direct," "$out/read.csv" || sb_fail "device reads did not go direct: $(cat "$out/read.csv")"

# With --destructive it may write there, and does.
"$SB_BIN" sweep "${quick[@]}" --destructive -f csv "$fdev" >"$out/write.csv"
sb_checksum "$fdev" after
[[ $before != "$after" ]] || sb_fail "a destructive sweep did not write to the device"
[[ $(grep -c ',write,' "$out/write.csv") -eq 2 ]] || sb_fail "destructive sweep: missing write rows"
echo "PASS: every refusal left the content unchanged; device reads and writes work"
