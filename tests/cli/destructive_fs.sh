#!/usr/bin/env bash
#
# destructive_fs.sh: --destructive on a block device that holds a
# filesystem is refused by every command that writes (sweep, job, zcav -w,
# verify, image), before anything is written, with one line that names what the
# device holds (type, label, UUID) and --force; with --force the write goes
# ahead. A device without a signature is written with --destructive alone.
# Needs root, losetup and mkfs.ext4 (a loop device over a 16 MiB file);
# skips otherwise.
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"
sb_require_bin

[[ $EUID -eq 0 ]] || sb_skip "needs root to attach a loop device"
for c in losetup mkfs.ext4 sha256sum; do
    command -v "$c" >/dev/null 2>&1 || sb_skip "$c is not installed"
done
sb_tmpdir T
export STORBENCH_DB=$T/db.sqlite
truncate -s 16M "$T/back.img" || sb_fail "truncate failed"
dev=$(losetup -f --show "$T/back.img" 2>"$T/losetup.err") ||
    sb_skip "no loop device here: losetup: $(cat "$T/losetup.err")"
sb_at_exit "losetup -d $(printf %q "$dev")"
mkfs.ext4 -q -F -L sbtest "$dev" >"$T/mkfs.out" 2>&1 || sb_fail "mkfs.ext4 $dev: $(cat "$T/mkfs.out")"
uuid=$(tune2fs -l "$dev" 2>/dev/null | sed -n 's/^Filesystem UUID: *//p')

failed=0
bad() {
    echo "not ok - $*"
    failed=$((failed + 1))
}
sum() { sha256sum <"$dev" | cut -d' ' -f1; }
before=$(sum)
expect="storbench: refusing to write to '$dev': it holds an ext4 filesystem (label 'sbtest', UUID ${uuid:-?}), which writing destroys; add --force to write over it"
refused() {
    local what=$1
    shift
    sb_run "$T/out" "$@"
    [[ $SB_RC -eq 1 ]] || bad "$what: exit status $SB_RC, expected 1"
    [[ $(cat "$T/out.stderr") == "$expect" ]] || bad "$what: stderr is '$(cat "$T/out.stderr")', expected '$expect'"
    [[ ! -s $T/out.stdout ]] || bad "$what: printed a result: $(cat "$T/out.stdout")"
    [[ $(sum) == "$before" ]] || bad "$what: the device changed"
}
refused "sweep" sweep --destructive -q --no-save --bs 1m --size 4m "$dev"
refused "zcav -w" zcav -w --destructive -b 1 -q --no-save "$dev"
refused "verify" verify --destructive -q --no-save "$dev"
refused "verify --write-only" verify --destructive --write-only --size 4m -q --no-save "$dev"
refused "job" job --destructive -q --no-save --name=w "--filename=$dev" --rw=write --bs=1m --size=4m
head -c 1M /dev/urandom >"$T/os.img"
refused "image" image --destructive -q --no-save "$T/os.img" "$dev"

# Reading is not writing: a read job and a read-only sweep go ahead.
sb_run "$T/read" sweep -q --no-save --only read --bs 1m --size 4m "$dev"
[[ $SB_RC -eq 0 ]] || bad "a read-only sweep of the device: exit status $SB_RC: $(cat "$T/read.stderr")"
# Without --destructive the first refusal stays the one that asks for it.
sb_run "$T/nod" verify -q --no-save "$dev"
grep -q "needs --destructive" "$T/nod.stderr" || bad "verify without --destructive: $(cat "$T/nod.stderr")"
[[ $(sum) == "$before" ]] || bad "reading changed the device"

# --force: the write goes ahead, and the filesystem is gone.
sb_run "$T/force" verify --destructive --force --no-probe --size 4m -q --no-save "$dev"
[[ $SB_RC -eq 0 ]] || bad "verify --destructive --force: exit status $SB_RC: $(cat "$T/force.stderr")"
grep -q "verdict  ok" "$T/force.stdout" || bad "verify --force: no ok verdict: $(cat "$T/force.stdout")"
# What verify wrote is no signature: --destructive alone writes now.
sb_run "$T/raw" sweep --destructive -q --no-save --bs 1m --size 4m "$dev"
[[ $SB_RC -eq 0 ]] || bad "sweep --destructive of the overwritten device: exit status $SB_RC: $(cat "$T/raw.stderr")"

if [[ $failed -ne 0 ]]; then
    sb_fail "$failed checks failed"
fi
echo "ok - sweep, zcav -w, verify and job refuse an ext4 device with --destructive alone, naming it; --force writes"
