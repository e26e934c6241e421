#!/usr/bin/env bash
# refuse.sh: targets storbench must not write to, and the device paths it
# may use.
#
# Each refusal is one line on stderr naming the reason, a non-zero exit, no
# file left behind, and the device's content byte-for-byte unchanged
# (sha256 before and after): a read-only filesystem; a block device without
# --destructive; a mounted device with --destructive; a device whose
# partition is mounted, with --destructive; a device in use as swap. Then
# what is allowed: reading an unmounted device in place (content unchanged)
# and, with --destructive, writing to it.
set -euo pipefail
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

sb_require_root
sb_require_bin
sb_require_loop
sb_tmpdir out

quick=(--bs 64k,1m --min-time 0.1s --max-time 0.5s --file-size 8m -q)

# expect_refusal DEVICE_TO_CHECKSUM PATTERN ARGS...: runs storbench sweep
# ARGS, which must fail with one stderr line matching PATTERN and leave the
# device unchanged.
expect_refusal() {
    local check=$1 pattern=$2 before after rc=0
    shift 2
    sync
    sb_checksum "$check" before
    "$SB_BIN" sweep "${quick[@]}" "$@" >"$out/stdout" 2>"$out/stderr" || rc=$?
    sync
    sb_checksum "$check" after
    echo "sweep $*: exit $rc: $(cat "$out/stderr")"
    [[ $rc -ne 0 ]] || sb_fail "sweep $* succeeded; it must be refused"
    [[ $(wc -l <"$out/stderr") -eq 1 ]] || sb_fail "sweep $*: expected one line on stderr"
    grep -Eq "^storbench: .*$pattern" "$out/stderr" || sb_fail "sweep $*: stderr does not match '$pattern'"
    [[ ! -s $out/stdout ]] || sb_fail "sweep $*: printed results for a refused target"
    [[ $before == "$after" ]] || sb_fail "sweep $*: the content of $check changed"
}

# A read-only filesystem.
sb_loop_create 64 dev
sb_mkfs "$dev" ext4
sb_mount "$dev" ro_mnt ro
expect_refusal "$dev" "read-only filesystem" "$ro_mnt"
[[ -z $(find "$ro_mnt" -name 'storbench-*') ]] || sb_fail "a file appeared on the read-only filesystem"

# A mounted device, with and without --destructive.
sb_loop_create 64 mdev
sb_mkfs "$mdev" ext4
sb_mount "$mdev" m_mnt
expect_refusal "$mdev" "needs --destructive" "$mdev"
expect_refusal "$mdev" "is mounted on $m_mnt" --destructive "$mdev"
[[ -z $(find "$m_mnt" -name 'storbench-*') ]] || sb_fail "a file appeared on the mounted filesystem"

# A device whose partition is mounted.
sb_loop_create_partitioned 64 pdev
sb_mkfs "${pdev}p1" ext4
sb_mount "${pdev}p1" p_mnt
expect_refusal "$pdev" "partition ${pdev##*/}p1 is mounted" --destructive "$pdev"

# A device in use as swap (where this kernel allows swap on a loop device).
sb_loop_create 64 sdev
if mkswap "$sdev" >/dev/null 2>&1 && swapon "$sdev" 2>/dev/null; then
    rc=0
    expect_refusal "$sdev" "in use as swap" --destructive "$sdev" || rc=$?
    swapoff "$sdev"
    [[ $rc -eq 0 ]] || exit "$rc"
else
    echo "note: swap on a loop device is not possible here; the swap case was not run"
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
