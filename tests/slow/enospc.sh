#!/usr/bin/env bash
# enospc.sh: a filesystem that fills up in the middle of a test.
#
# storbench checks free space before it writes, so the space must vanish
# while it runs: a small ext4 (no root reserve), a sweep in fixed mode whose
# first point (4k) completes and whose second (8 B, slow: one write() per 8
# bytes) is still growing its file when another process takes all the free
# space with fallocate (the poll below tells the points apart). The sweep
# must end that point with ENOSPC named on one stderr line, keep and print
# the 4k point, mark the 8 B point incomplete, exit 1 and leave no test file.
set -euo pipefail
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

sb_require_root
sb_require_bin
sb_require_loop
sb_require_cmd fallocate python3

# On the machine's disk, not in RAM (sb_loop_create's default): the polling
# below must see the 4k point's file at 16 MiB, which in RAM takes 30 ms.
SB_LOOP_DIR=${SB_TMP:-/tmp} sb_loop_create 64 dev
sb_mkfs "$dev" ext4 -m 0
sb_mount "$dev" mnt
sb_tmpdir out

"$SB_BIN" sweep -q -f csv --size 16m --bs 4k,8 --only write "$mnt" \
    >"$out/stdout" 2>"$out/stderr" &
pid=$!

# Wait for the 8 B point: the test file is truncated to 0 and grows again.
# Then take every free block. The 8 B point has begun once the file has been
# seen at the 4k point's 16 MiB, or smaller than it was seen before (the
# 4k point's full file lasts only from its fdatasync to the idle wait's end,
# a few ms, which a poll every ~10 ms can miss), or growing by less than
# 16 MiB/s between two looks. The 4k point's buffered writes fill its 16 MiB
# in tens of ms (357 MiB/s in a CI run), the 8 B point's take seconds (one
# system call per 8 bytes: 3.8 MiB/s there). A CI run whose poll was held up
# for the 4k point's whole life saw only the 8 B point's file growing, from
# 0 to its end, by the first two rules.
phase=first
filled=no
largest=0
prev=0
prev_t=
for _ in $(seq 1 3000); do
    f=$(find "$mnt" -maxdepth 1 -name 'storbench-*.tmp' -print -quit)
    if [[ -n $f ]]; then
        size=$(stat -c %s "$f" 2>/dev/null || echo 0)
        now=${EPOCHREALTIME/[.,]/} # microseconds
        if [[ $phase == first && ($size -ge $((16 << 20)) || $size -lt $largest) ]]; then
            phase=second
        elif [[ $phase == first && $prev -gt 0 && $size -gt $prev && $size -lt $((8 << 20)) ]] &&
            (((size - prev) * 1000000 < (16 << 20) * (now - prev_t))); then
            phase=second
        fi
        [[ $size -gt $largest ]] && largest=$size
        prev=$size
        prev_t=$now
        if [[ $phase == second && $size -gt 0 && $size -lt $((8 << 20)) ]]; then
            free=$(( $(stat -f -c '%a * %S' "$mnt") ))
            fallocate -l "$free" "$mnt/filler" 2>/dev/null ||
                fallocate -l $((free - (1 << 20))) "$mnt/filler"
            filled=yes
            break
        fi
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.01
done
rc=0
wait "$pid" || rc=$?
cat "$out/stdout"
cat "$out/stderr"
rm -f "$mnt/filler"

[[ $filled == yes ]] || sb_fail "the 8 B point was never seen running; cannot fill the disk in time"
[[ $rc -eq 1 ]] || sb_fail "exit status $rc, expected 1"
[[ $(wc -l <"$out/stderr") -eq 1 ]] || sb_fail "expected exactly one line on stderr"
grep -q '^storbench: .*No space left on device' "$out/stderr" || sb_fail "stderr does not name ENOSPC"
grep -q 'offset [0-9]' "$out/stderr" || sb_fail "stderr does not give the offset"
python3 - "$out/stdout" <<'PY' || sb_fail "the CSV does not keep the 4k point and an incomplete 8 B point"
import csv, sys
rows = {r["bs_bytes"]: r for r in csv.DictReader(open(sys.argv[1]))}
assert rows["4096"]["complete"] == "yes" and float(rows["4096"]["mib_per_s"]) > 0, rows
assert rows["8"]["complete"] == "no" and "No space left" in rows["8"]["error"], rows
assert rows["8"]["mib_per_s"] == "", rows  # no rate was measured: no number
PY
leftover=$(find "$mnt" -name 'storbench-*' -print -quit)
[[ -z $leftover ]] || sb_fail "test file left behind: $leftover"
echo "PASS: ENOSPC mid-test reported, earlier point kept, nothing left behind"
