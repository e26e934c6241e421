#!/usr/bin/env bash
# accuracy.sh FSTYPE: storbench sweep against a device whose true speed we set.
#
# A direct-I/O loop device throttled to 10 MiB/s of writes and 20 MiB/s of
# reads carries FSTYPE; the sweep's points at 64k and above, with the default
# stop rule, must measure the limits within +-3%. (Why multiples of 10 MiB/s:
# see sb_throttle in lib.sh.) The test file is 64 MiB on a machine with far more RAM,
# so a read served from the page cache would show GiB/s: the read limit being
# met proves the reads are cold, on the O_DIRECT path and (with --no-direct)
# on the buffered path that drops the file's cache first.
set -euo pipefail
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

fs=${1:?usage: accuracy.sh FSTYPE}
sb_require_root
sb_require_bin
sb_require_loop
sb_require_blkio
sb_require_cmd python3

write_mib=10
read_mib=20
sb_loop_create 512 dev
sb_mkfs "$dev" "$fs"
sb_mount "$dev" mnt
sb_throttle "$dev" wbps=${write_mib}M rbps=${read_mib}M

sb_tmpdir out
"$SB_BIN" sweep -q -f csv --bs 64k,256k,1m "$mnt" >"$out/direct.csv"
"$SB_BIN" sweep -q -f csv --bs 64k,1m --only read --no-direct "$mnt" >"$out/buffered.csv"
cat "$out/direct.csv" "$out/buffered.csv"

# Every row: the rate, the limit it must meet, and the I/O path it must have
# taken. python3 reads the CSV so quoted fields cannot confuse the check.
check() {
    python3 - "$1" "$2" "$write_mib" "$read_mib" <<'PY'
import csv, sys
path, want_path, wmib, rmib = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
rows = list(csv.DictReader(open(path)))
for r in rows:
    truth = wmib if r["direction"] == "write" else rmib
    io = "buffered, fdatasync" if r["direction"] == "write" else want_path
    print(r["direction"], r["bs_bytes"], r["mib_per_s"], truth, r["io_path"] == io, r["complete"])
PY
}
bad=0
rows=0
while read -r dir bs got truth path_ok complete; do
    rows=$((rows + 1))
    [[ $complete == yes ]] || { echo "$dir $bs: incomplete"; bad=1; }
    [[ $path_ok == True ]] || { echo "$dir $bs: unexpected I/O path"; bad=1; }
    printf '%s %s: ' "$dir" "$bs"
    sb_within "$got" "$truth" 3 || bad=1
done < <(check "$out/direct.csv" direct; check "$out/buffered.csv" "buffered, file cache dropped")

[[ $rows -eq 8 ]] || sb_fail "expected 8 measured points, got $rows"
[[ $bad -eq 0 ]] || sb_fail "$fs: a point missed its true speed by more than 3%"
leftover=$(find "$mnt" -name 'storbench-*' | head -1)
[[ -z $leftover ]] || sb_fail "test file left behind: $leftover"
echo "PASS: $fs within 3% of ${write_mib}/${read_mib} MiB/s"
