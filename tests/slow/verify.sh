#!/usr/bin/env bash
# verify.sh: storbench verify on real devices.
#  1. A directory on an ext4 loop device: --write-only, unmount (the card
#     is "unplugged"), bytes changed in the loop's backing file at the
#     places filefrag gives for the data file, mount again, --read-only:
#     the exact counts of corrupted, changed and overwritten sectors.
#  2. The same filesystem filled by a run without --size: the free space
#     used, every sector ok, nothing left behind.
#  3. A raw loop device with --destructive: the quick probe passes, every
#     sector ok; then --write-only and --read-only on the device.
#  4. A fake-capacity device (the FUSE fixture: 64 MiB claimed, 16 MiB
#     real): the quick probe stops with the verdict in seconds; with
#     --no-probe the full run counts exactly 16 MiB ok and 48 MiB changed.
set -euo pipefail
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

sb_require_root
sb_require_bin
sb_require_loop
sb_require_cmd filefrag timeout
sb_tmpdir out

V=("$SB_BIN" verify -q --no-save)

# expect_line FILE REGEX WHAT
expect_line() {
    grep -Eq -- "$2" "$1" || sb_fail "$3: no line matching '$2' in: $(cat "$1")"
}

# ---- 1. damage between the phases, on a filesystem -------------------------
sb_loop_create 64 dev
sb_mkfs "$dev" ext4
sb_mount "$dev" mnt
back=$(losetup -n -O BACK-FILE "$dev")
"${V[@]}" --size 8m --write-only "$mnt" >"$out/w.txt"
f=$(ls "$mnt"/storbench-verify-*-0000.dat)
# The file's first extent: "0: 0.. N: PHYS.. ..." in 512-byte units (the
# filesystem's blocks may be 1 KiB on a device this small).
phys=$(filefrag -e -b512 "$f" | awk '$1 == "0:" { sub(/\.\..*/, "", $4); print $4 }')
[[ $phys =~ ^[0-9]+$ ]] || sb_fail "filefrag gave no first extent for $f: $(filefrag -e -b512 "$f")"
ext_len=$(filefrag -e -b512 "$f" | awk '$1 == "0:" { sub(/:$/, "", $6); print $6 }')
[[ ${ext_len:-0} -ge 256 ]] || sb_fail "the first extent is too short to damage: $(filefrag -e -b512 "$f")"
base=$((phys * 512))
umount "$mnt"
# Sectors 3, 7 and 100: one byte each, inverted (corrupted; a fixed byte
# left the sector as written when the random data held that byte there, 1 run
# in 85); sector 12: FF (overwritten, as erased flash reads); sector 200: a
# copy of sector 199 (changed).
for s in 3 7 100; do
    at=$((base + s * 512 + 77))
    old=$(dd if="$back" bs=1 skip=$at count=1 status=none | od -An -tu1 | tr -d ' ')
    [[ $old =~ ^[0-9]+$ ]] || sb_fail "could not read byte $at of $back"
    printf "\\$(printf '%03o' $((old ^ 255)))" | dd of="$back" bs=1 seek=$at conv=notrunc status=none
done
head -c 512 /dev/zero | tr '\0' '\377' | dd of="$back" bs=512 seek=$((base / 512 + 12)) conv=notrunc status=none
dd if="$back" bs=512 skip=$((base / 512 + 199)) count=1 status=none |
    dd of="$back" bs=512 seek=$((base / 512 + 200)) conv=notrunc status=none
sync
mount "$dev" "$mnt"
rc=0
"${V[@]}" --read-only "$mnt" >"$out/r.txt" 2>"$out/r.err" || rc=$?
cat "$out/r.txt" "$out/r.err"
[[ $rc -eq 1 ]] || sb_fail "--read-only of damaged data exited $rc"
expect_line "$out/r.txt" '^  sectors  16379 ok, 3 corrupted, 1 changed, 1 overwritten, 0 missing$' "damage counts"
expect_line "$out/r.txt" '^  verdict  damaged: 5 of 16384 sectors are not as written, the first at byte 1536 ' "verdict"
[[ -z $(find "$mnt" -name 'storbench-verify*') ]] || sb_fail "--read-only left its files"

# ---- 2. fill the free space -------------------------------------------------
free=$(df -B1 --output=avail "$mnt" | tail -1)
"${V[@]}" --file-size 16m "$mnt" >"$out/fill.txt"
cat "$out/fill.txt"
expect_line "$out/fill.txt" '^  sectors  [0-9]+ ok, 0 corrupted, 0 changed, 0 overwritten, 0 missing$' "fill: counts"
written=$(sed -n 's/^  usable .*(\([0-9]*\) of \([0-9]*\) bytes)$/\2/p' "$out/fill.txt")
echo "free before: $free bytes, written: $written bytes"
[[ $written -le $free && $written -ge $((free * 9 / 10)) ]] ||
    sb_fail "fill: wrote $written bytes of $free free"
expect_line "$out/fill.txt" '^  write .* in [0-9]+ files ' "fill: several files"
[[ -z $(find "$mnt" -name 'storbench-verify*') ]] || sb_fail "fill: files left behind"
umount "$mnt"

# ---- 3. a raw device --------------------------------------------------------
sb_loop_create 32 rdev
"${V[@]}" --destructive "$rdev" >"$out/dev.txt"
cat "$out/dev.txt"
expect_line "$out/dev.txt" '^  probe    [0-9]+ sectors spread over 32.0 MiB read back as written \([0-9. a-z]+\)$' "device: probe"
expect_line "$out/dev.txt" '^  sectors  65536 ok, 0 corrupted, 0 changed, 0 overwritten, 0 missing$' "device: counts"
"${V[@]}" --destructive --write-only --size 8m "$rdev" >"$out/dw.txt"
expect_line "$out/dw.txt" '^  kept     the data stays on the device' "device: --write-only"
"${V[@]}" --read-only "$rdev" >"$out/dr.txt"
cat "$out/dr.txt"
expect_line "$out/dr.txt" '^  sectors  16384 ok, 0 corrupted, 0 changed, 0 overwritten, 0 missing$' "device: --read-only"
# A device storbench never wrote: nothing to read back.
sb_loop_create 8 edev
rc=0
"${V[@]}" --read-only "$edev" >"$out/e.txt" 2>"$out/e.err" || rc=$?
[[ $rc -eq 1 && ! -s $out/e.txt ]] || sb_fail "--read-only of an empty device exited $rc"
expect_line "$out/e.err" "holds no data of storbench verify" "empty device"

# ---- 4. a fake-capacity device ---------------------------------------------
sb_fuse_create 64 16 fdev
rc=0
start=$(date +%s%N)
timeout 60 "${V[@]}" --destructive "$fdev" >"$out/fake.txt" 2>"$out/fake.err" || rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
cat "$out/fake.txt" "$out/fake.err"
echo "quick probe: $ms ms"
[[ $rc -eq 1 ]] || sb_fail "the probe of a fake device exited $rc"
expect_line "$out/fake.txt" '^  verdict  fake capacity: the device holds at most 16.0 MiB of the 64.0 MiB it claims' "probe verdict"
! grep -q '^  write' "$out/fake.txt" || sb_fail "the full run started after the probe failed"
expect_line "$out/fake.err" "has a fake capacity" "probe: stderr"
[[ $ms -lt 10000 ]] || sb_fail "the probe took $ms ms"
rc=0
timeout 120 "${V[@]}" --destructive --no-probe "$fdev" >"$out/full.txt" 2>"$out/full.err" || rc=$?
cat "$out/full.txt" "$out/full.err"
[[ $rc -eq 1 ]] || sb_fail "the full run on a fake device exited $rc"
# Written in order, the last 16 MiB (48..64) is what the 16 MiB hold.
expect_line "$out/full.txt" '^  sectors  32768 ok, 0 corrupted, 98304 changed, 0 overwritten, 0 missing$' "full run: counts"
expect_line "$out/full.txt" '^  usable   16.0 MiB of 64.0 MiB written' "full run: usable"
expect_line "$out/full.txt" '^  verdict  fake capacity: ' "full run: verdict"
echo "PASS: damage counted exactly; free space filled; devices checked; fake capacity found by the probe and the full run"
