#!/usr/bin/env bash
# eio.sh: a device that fails with EIO at a chosen offset (the FUSE
# fixture). sweep, job, bonnie, zcav and verify, on the raw device and on a filesystem
# over it, must each report the error with its offset, keep and print what
# they measured before it, remove their files, exit non-zero, and not hang
# (every run is under timeout).
set -euo pipefail
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

sb_require_root
sb_require_bin
sb_require_loop
sb_require_cmd timeout
sb_tmpdir out

MiB=1048576
# The bad range: 4 KiB at 40 MiB.
bad=$((40 * MiB))
range=$bad-$((bad + 4096))

# run_eio NAME WANT_OFFSET_REGEX CMD...: the command must fail (not time out),
# print one error line naming the offset, and print its results so far.
run_eio() {
    local name=$1 want=$2 rc=0
    shift 2
    timeout 120 "$SB_BIN" "$@" >"$out/$name.out" 2>"$out/$name.err" || rc=$?
    echo "== $name: exit $rc"
    cat "$out/$name.out" "$out/$name.err"
    [[ $rc -ne 124 ]] || sb_fail "$name: hung (killed by timeout after 120 s)"
    [[ $rc -ne 0 ]] || sb_fail "$name: exited 0 after an I/O error"
    [[ $(wc -l <"$out/$name.err") -eq 1 ]] || sb_fail "$name: not one error line on stderr"
    grep -Eq "Input/output error" "$out/$name.err" || sb_fail "$name: the error is not EIO"
    grep -Eq "$want" "$out/$name.err" || sb_fail "$name: the offset ($want) is not in the error line"
}

# ---- reads fail at 40 MiB of a 64 MiB device --------------------------------
sb_fuse_create 64 64 rdev "eio_read=$range"

# zcav in 8 MiB blocks: blocks 0..32 MiB are measured, the block at 40 fails.
run_eio zcav-read "offset $bad|$bad" zcav -b 8 -q --no-save "$rdev"
[[ $(grep -c '^[0-9]' "$out/zcav-read.out") -eq 5 ]] || sb_fail "zcav: the 5 blocks before the error are not all printed"
grep -q '^# incomplete: ' "$out/zcav-read.out" || sb_fail "zcav: the output does not say it is incomplete"

# verify on the raw device: the probe reads across 40 MiB.
run_eio verify-read "byte offset $bad" verify -q --no-save --destructive --no-probe "$rdev"
grep -Eq '^  write +64.0 MiB' "$out/verify-read.out" || sb_fail "verify: the write phase is not kept"
grep -Eq '^  sectors  81920 ok, ' "$out/verify-read.out" || sb_fail "verify: the 40 MiB read before the error are not counted"
grep -q '^  verdict  incomplete: ' "$out/verify-read.out" || sb_fail "verify: not marked incomplete"

# sweep on the raw device, a 48 MiB test file: the reads reach 40 MiB.
run_eio sweep-read "offset $bad|$bad" sweep -q --no-save --destructive --bs 1m --size 48m -f csv "$rdev"
grep -q ',write,1048576,' "$out/sweep-read.out" || sb_fail "sweep: the write point measured before the error is not printed"

# storbench job, fio's way of reading the whole device: the error names the
# job and the offset, the job's row is printed and marked incomplete.
run_eio job-read "offset $bad" job -q --no-save --name=r --filename="$rdev" --rw=read \
    --bs=1m --direct=1
grep -qE '^r +read \* ' "$out/job-read.out" || sb_fail "job: the read row is not printed and marked *"
grep -q "^\* r read: incomplete: " "$out/job-read.out" || sb_fail "job: the output does not say why it is incomplete"
# ... and with io_uring, at queue depth 8: the requests in flight are reaped.
run_eio job-read-uring "offset $bad" job -q --no-save --name=r --filename="$rdev" --rw=read \
    --bs=1m --direct=1 --ioengine=io_uring --iodepth=8

# ---- writes fail at 40 MiB ----------------------------------------------
sb_fuse_create 64 64 wdev "eio_write=$range"
run_eio job-write "offset $bad" job -q --no-save --destructive --name=w --filename="$wdev" \
    --rw=write --bs=1m --direct=1
run_eio zcav-write "offset $bad|$bad" zcav -w --destructive -b 8 -q --no-save "$wdev"
[[ $(grep -c '^[0-9]' "$out/zcav-write.out") -eq 5 ]] || sb_fail "zcav -w: the 5 blocks before the error are not all printed"
run_eio verify-write "byte offset $bad" verify -q --no-save --destructive --no-probe "$wdev"
grep -q '^  verdict  incomplete: ' "$out/verify-write.out" || sb_fail "verify -w: not marked incomplete"
# sweep writes buffered, as an application does: the kernel reports the
# failed writeback at fdatasync, which knows no offset finer than the file's.
run_eio sweep-write "fdatasync of .* failed at offset [0-9]+" sweep -q --no-save --destructive --bs 1m --size 48m -f csv "$wdev"

# ---- a filesystem whose device fails reads ---------------------------------
# ext4 on a 64 MiB device that fails reads from 24 MiB to its end: the data
# of the files lands there, the metadata mostly before it. The files must
# be gone afterwards (unlink needs no data read).
sb_fuse_create 64 64 fdev
sb_mkfs "$fdev" ext4
sb_mount "$fdev" mnt
sb_fuse_eio "eio_read=$((24 * MiB))-$((64 * MiB))"
run_eio verify-fs "byte offset [0-9]+" verify -q --no-save --size 40m --file-size 8m "$mnt"
grep -q '^  verdict  incomplete: ' "$out/verify-fs.out" || sb_fail "verify on a filesystem: not marked incomplete"
[[ -z $(find "$mnt" -name 'storbench-*') ]] || sb_fail "verify left files on the filesystem: $(ls "$mnt")"
run_eio sweep-fs "offset [0-9]+" sweep -q --no-save --bs 1m --size 32m -f csv "$mnt"
[[ -z $(find "$mnt" -name 'storbench-*') ]] || sb_fail "sweep left files on the filesystem: $(ls "$mnt")"
# job: its generated file (fio's r.0.0) is laid out and read back.
run_eio job-fs "offset [0-9]+" job -q --no-save --name=r --directory="$mnt" --size=32m \
    --rw=read --bs=1m --direct=1
[[ -z $(find "$mnt" -name 'r.0.*') ]] || sb_fail "job left its file on the filesystem: $(ls "$mnt")"
# bonnie: block output lands in the failing range, block input fails there.
run_eio bonnie-fs "offset [0-9]+" bonnie --no-save -f -n 0 -s 32 "$mnt"
[[ -z $(find "$mnt" -name 'storbench-*') ]] || sb_fail "bonnie left files on the filesystem: $(ls "$mnt")"
echo "PASS: sweep, job, bonnie, zcav and verify report EIO with its offset, keep their results, clean up and exit non-zero"
