#!/usr/bin/env bash
# tests/slow/fuse_fixture.sh: tests the FUSE fixture of lib.sh
# (sb_fuse_create, sb_fuse_eio, sb_fuse_card; the program
# tests/slow/fuse/sb_fakedisk.c). Its card timing is fuse_timing.sh's.
#  1. The device wraps: what is written at the backing size reads back at 0;
#     its size is the claimed one.
#  2. EIO: reads and writes touching the ranges fail, others work;
#     sb_fuse_eio changes the ranges in use and turns them off.
#  3. A child test with a filesystem mounted on a fixture device is killed
#     (SIGTERM to the shell: its trap; SIGKILL to its process group: the
#     guardian): the mount, the loop device, the FUSE mount and the program
#     are all gone afterwards, and so are those of an sb_fuse_card device
#     with its backing file in /dev/shm.
#
# Internal: `fuse_fixture.sh --child FILE` is the child test of step 3; it
# writes the paths it set up to FILE and waits to be killed.
set -euo pipefail
here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$here/lib.sh"

if [[ ${1:-} == --child ]]; then
    sb_fuse_create 32 32 dev
    sb_mkfs "$dev" ext4
    sb_mount "$dev" mnt
    sb_fuse_card 16 card cliff=1M:1M:1M
    printf '%s %s %s %s %s %s\n' "$dev" "${SB_FUSE_FILE%/disk}" "$mnt" \
        "$card" "${SB_FUSE_FILE%/disk}" "$SB_FUSE_BACKING" >"$2.new"
    mv "$2.new" "$2"
    sleep 300 &
    wait $! # a trap runs at once in wait, not after a foreground sleep
    exit 0
fi

sb_require_root
sb_require_loop
sb_require_fuse
sb_require_cmd dd cmp mkfs.ext4
sb_tmpdir out

# ---- 1. wrap-around --------------------------------------------------------
sb_fuse_create 8 2 dev
[[ $(blockdev --getsize64 "$dev") -eq $((8 << 20)) ]] || sb_fail "the device is not 8 MiB"
head -c 4096 /dev/urandom >"$out/a"
dd if="$out/a" of="$dev" bs=4096 seek=$((2 << 20 >> 12)) oflag=direct status=none
dd if="$dev" of="$out/b" bs=4096 count=1 iflag=direct status=none
cmp -s "$out/a" "$out/b" || sb_fail "what was written at 2 MiB does not read back at 0"
dd if="$dev" of="$out/c" bs=4096 count=1 skip=$((6 << 20 >> 12)) iflag=direct status=none
cmp -s "$out/a" "$out/c" || sb_fail "what was written at 2 MiB does not read back at 6 MiB"
echo "ok - wraps around modulo the backing size"

# ---- 2. EIO ----------------------------------------------------------------
sb_fuse_create 8 8 edev "eio_read=$((1 << 20))-$(((1 << 20) + 4096))" "eio_write=$((3 << 20))-$(((3 << 20) + 512))"
dd if="$edev" of=/dev/null bs=4096 count=1 iflag=direct status=none || sb_fail "a read before the range failed"
! dd if="$edev" of=/dev/null bs=4096 count=1 skip=256 iflag=direct status=none 2>/dev/null ||
    sb_fail "a read of the EIO range succeeded"
! dd if=/dev/zero of="$edev" bs=4096 count=1 seek=768 oflag=direct status=none 2>/dev/null ||
    sb_fail "a write of the EIO range succeeded"
dd if=/dev/zero of="$edev" bs=4096 count=1 seek=769 oflag=direct status=none || sb_fail "a write after the range failed"
sb_fuse_eio "eio_read=0-512"
! dd if="$edev" of=/dev/null bs=4096 count=1 iflag=direct status=none 2>/dev/null ||
    sb_fail "sb_fuse_eio: the new range does not fail"
dd if="$edev" of=/dev/null bs=4096 count=1 skip=256 iflag=direct status=none || sb_fail "sb_fuse_eio: the old range still fails"
sb_fuse_eio
dd if="$edev" of=/dev/null bs=1M iflag=direct status=none || sb_fail "sb_fuse_eio without ranges: reads still fail"
echo "ok - EIO ranges, changed and turned off while in use"

# ---- 3. killed children clean up -------------------------------------------
for how in TERM KILL; do
    info=$out/child-$how
    setsid bash "$here/fuse_fixture.sh" --child "$info" >"$out/child-$how.log" 2>&1 &
    pid=$!
    for _ in $(seq 100); do
        [[ -s $info ]] && break
        sleep 0.1
    done
    [[ -s $info ]] || sb_fail "the child did not set up its fixture: $(cat "$out/child-$how.log")"
    read -r cdev cfuse cmnt kdev kfuse kback <"$info"
    if [[ $how == TERM ]]; then
        kill -TERM "$pid"
    else
        kill -KILL -- "-$pid"
    fi
    wait "$pid" 2>/dev/null || true
    left=
    for _ in $(seq 200); do
        left=
        mountpoint -q "$cmnt" 2>/dev/null && left+=" mount $cmnt;"
        mountpoint -q "$cfuse" 2>/dev/null && left+=" FUSE mount $cfuse;"
        grep -qF "$cfuse/disk" <<<"$(losetup -l -n -O BACK-FILE 2>/dev/null)" && left+=" loop device $cdev;"
        pgrep -f "sb_fakedisk $cfuse " >/dev/null && left+=" sb_fakedisk;"
        mountpoint -q "$kfuse" 2>/dev/null && left+=" card FUSE mount $kfuse;"
        grep -qF "$kfuse/disk" <<<"$(losetup -l -n -O BACK-FILE 2>/dev/null)" && left+=" card loop device $kdev;"
        pgrep -f "sb_fakedisk $kfuse " >/dev/null && left+=" card sb_fakedisk;"
        [[ -e $kback ]] && left+=" card backing file $kback;"
        [[ -z $left ]] && break
        sleep 0.1
    done
    [[ -z $left ]] || sb_fail "SIG$how: left after 20 s:$left"
    echo "ok - SIG$how: the child's FUSE fixture is gone"
done
echo "PASS"
