#!/usr/bin/env bash
# store_full.sh: the results archive is on a filesystem that is full.
#
# A small ext4 holds the archive, which already has one run; every free
# block is then taken with fallocate. A sweep of another directory must
# still print its results, say on one stderr line that they were not saved,
# exit 1, and leave the archive intact (PRAGMA integrity_check) with its one
# run. Once space is freed, the next save works.
set -euo pipefail
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

sb_require_root
sb_require_bin
sb_require_loop
sb_require_cmd fallocate sqlite3

sb_loop_create 16 dev
sb_mkfs "$dev" ext4 -m 0
sb_mount "$dev" mnt
sb_tmpdir work
sb_tmpdir out
db=$mnt/archive/results.db
F=(--bs 4k --min-time 0.1s --max-time 0.2s --file-size 4m -q --db "$db")

"$SB_BIN" sweep "${F[@]}" "$work" >/dev/null 2>"$out/first.err" ||
    sb_fail "the first sweep failed: $(cat "$out/first.err")"
free=$(($(stat -f -c '%a * %S' "$mnt")))
fallocate -l "$free" "$mnt/filler" 2>/dev/null || fallocate -l $((free - 4096)) "$mnt/filler"
sync
echo "archive filesystem: $(df -h "$mnt" | tail -1)"

rc=0
"$SB_BIN" sweep "${F[@]}" "$work" >"$out/stdout" 2>"$out/stderr" || rc=$?
cat "$out/stderr"
failed=0
bad() {
    echo "not ok - $*"
    failed=$((failed + 1))
}
[[ $rc -eq 1 ]] || bad "exit status $rc, expected 1"
[[ $(awk 'END { print NR }' "$out/stderr") -eq 1 ]] || bad "expected exactly one line on stderr"
grep -q '^storbench: results not saved: .*No space left on device' "$out/stderr" ||
    bad "the error line does not say 'results not saved' and 'No space left on device'"
grep -q '^Write throughput' "$out/stdout" || bad "the results were not printed"
# SQLite cannot even open the archive while the disk is full (its WAL needs a
# block): check it once there is space again.
rm -f "$mnt/filler"
ic=$(sqlite3 "$db" 'PRAGMA integrity_check;' 2>&1) || true
[[ $ic == ok ]] || bad "integrity_check: $ic"
n=$(sqlite3 "$db" 'SELECT count(*) FROM runs;' 2>&1) || true
[[ $n == 1 ]] || bad "$n runs in the archive, expected 1"
"$SB_BIN" sweep "${F[@]}" "$work" >/dev/null 2>"$out/again.err" || bad "saving after freeing space failed: $(cat "$out/again.err")"
n=$(sqlite3 "$db" 'SELECT count(*) FROM runs;' 2>&1) || true
[[ $n == 2 ]] || bad "$n runs after freeing space, expected 2"

[[ $failed -eq 0 ]] || sb_fail "$failed checks failed"
echo "ok - full disk: results printed, one error line, exit 1, archive intact"
