#!/usr/bin/env bash
# zcav.sh: storbench zcav against a device whose true read speed we set, and
# its refusals on a real device.
#
# A 128 MiB direct-I/O loop device throttled to 16 MiB/s of reads: `zcav -b 16`
# reads it in 8 blocks of about a second each, and the mean of the MiB/s
# column must be within +-3% of 16. (After idle, the throttle lets through
# about one 100 ms slice of credit at once, so the first block reads a little
# fast; over 8 one-second blocks that is about 1% of the mean at most.) The read
# leaves the device unchanged. Then -w without --destructive, -r beyond
# the end, and -w --destructive on a mounted device (mounted read-only, so
# that the filesystem itself writes nothing): refused with one line, non-zero exit,
# the device unchanged (sha256).
set -euo pipefail
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

sb_require_root
sb_require_bin
sb_require_loop
sb_require_blkio

read_mib=16
sb_loop_create 128 dev
# Something other than zeros to read, written before the throttle.
dd if=/dev/urandom of="$dev" bs=1M count=128 oflag=direct status=none
sb_checksum "$dev" before
sb_throttle "$dev" rbps=${read_mib}M
sb_tmpdir out

"$SB_BIN" zcav -b 16 -q "$dev" >"$out/zcav.out" 2>"$out/zcav.err" ||
    sb_fail "zcav -b 16 $dev failed: $(cat "$out/zcav.err")"
cat "$out/zcav.out"
[[ ! -s $out/zcav.err ]] || sb_fail "zcav wrote to stderr: $(cat "$out/zcav.err")"
blocks=$(grep -c '^[0-9]' "$out/zcav.out")
[[ $blocks -eq 8 ]] || sb_fail "expected 8 block lines, got $blocks"
mean=$(awk '/^[0-9]/ { s += $2; n++ } END { printf "%.3f", s / n }' "$out/zcav.out")
min=$(awk '/^[0-9]/ { if (m == "" || $2 < m) m = $2 } END { print m }' "$out/zcav.out")
max=$(awk '/^[0-9]/ { if ($2 > m) m = $2 } END { print m }' "$out/zcav.out")
echo "mean $mean MiB/s over $blocks blocks (min $min, max $max), limit $read_mib MiB/s"
printf 'mean: '
sb_within "$mean" "$read_mib" 3 || sb_fail "the mean misses the read limit by more than 3%"
sync
sb_checksum "$dev" after
[[ $before == "$after" ]] || sb_fail "reading changed the device"

# expect_refusal PATTERN ARGS...: zcav ARGS must fail with one stderr line
# matching PATTERN, print nothing, and leave $check unchanged.
expect_refusal() {
    local pattern=$1 rc=0 b a
    shift
    sync
    sb_checksum "$check" b
    "$SB_BIN" zcav -q "$@" >"$out/stdout" 2>"$out/stderr" || rc=$?
    sync
    sb_checksum "$check" a
    echo "zcav $*: exit $rc: $(cat "$out/stderr")"
    [[ $rc -ne 0 ]] || sb_fail "zcav $* succeeded; it must be refused"
    [[ $(wc -l <"$out/stderr") -eq 1 ]] || sb_fail "zcav $*: expected one line on stderr"
    grep -Eq "^storbench: .*$pattern" "$out/stderr" || sb_fail "zcav $*: stderr does not match '$pattern'"
    [[ ! -s $out/stdout ]] || sb_fail "zcav $*: printed output"
    [[ $b == "$a" ]] || sb_fail "zcav $*: the content of $check changed"
}

sb_loop_create 32 mdev
check=$mdev
dd if=/dev/urandom of="$mdev" bs=1M count=32 oflag=direct status=none
expect_refusal "add --destructive" -w -b 4 "$mdev"
expect_refusal "beyond the end" -b 4 -r 40 "$mdev"
sb_mkfs "$mdev" ext4
sb_mount "$mdev" mnt ro
expect_refusal "is mounted on $mnt" -w --destructive -b 4 "$mdev"
expect_refusal "is a directory" -b 4 "$mnt"
echo "PASS: zcav mean $mean MiB/s, within 3% of $read_mib MiB/s; refusals left the devices unchanged"
