#!/usr/bin/env bash
# verify.sh: `storbench verify` on a directory (no root needed): both phases
# clean; JSON with units; --write-only, then bytes changed in the files by
# hand, then --read-only with the exact counts of corrupted, changed,
# overwritten and missing sectors; a write phase refused over an earlier
# run's files; the run in the archive; and bad input: one line on stderr,
# the documented exit code, nothing on stdout, the directory unchanged.
# (Devices, the FUSE fake-capacity card and EIO: tests/slow/verify.sh and
# tests/slow/eio.sh.)
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"

sb_tmpdir T
D=$T/d
mkdir "$D"

# Both phases, 8 MiB: 16384 sectors, all ok, nothing left behind.
sb_run "$T/a" verify -q --size 8m "$D"
sb_show "$T/a.stdout" "verify --size 8m"
sb_show "$T/a.stderr" "stderr"
[[ $SB_RC -eq 0 ]] || sb_fail "verify exited $SB_RC"
grep -q '^  sectors  16384 ok, 0 corrupted, 0 changed, 0 overwritten, 0 missing$' "$T/a.stdout" ||
    sb_fail "wrong sector counts"
grep -q '^  usable   8.0 MiB of 8.0 MiB written (8388608 of 8388608 bytes)$' "$T/a.stdout" || sb_fail "wrong usable capacity"
grep -q '^  verdict  ok: every sector read back as written$' "$T/a.stdout" || sb_fail "no ok verdict"
grep -Eq '^  write +8.0 MiB  in 1 file +[0-9.]+ MiB/s' "$T/a.stdout" || sb_fail "no write line"
[[ ! -s $T/a.stderr ]] || sb_fail "stderr is not empty on success"
[[ -z $(ls -A "$D") ]] || sb_fail "files left behind: $(ls -A "$D")"

# JSON to a file, two files of 2 MiB: kind, names, units, values.
sb_run "$T/j" verify -q --size 4m --file-size 2m -f json -o "$T/out.json" "$D"
[[ $SB_RC -eq 0 ]] || sb_fail "verify -f json exited $SB_RC: $(cat "$T/j.stderr")"
[[ ! -s $T/j.stdout ]] || sb_fail "-o: output also went to stdout"
if command -v python3 >/dev/null 2>&1; then
    python3 - "$T/out.json" <<'PY' || sb_fail "the JSON is not as expected"
import json, sys
run = json.load(open(sys.argv[1]))
t = run["targets"][0]
assert t["kind"] == "directory", t["kind"]
tests = {x["name"]: x for x in t["tests"]}
assert set(tests) == {"write", "read"}, tests.keys()
for x in tests.values():
    assert x["kind"] == "verify"
    assert x["complete"] is True
ms = {m["metric"]: m for m in tests["read"]["measurements"]}
want = {"sectors_ok": ("1", 8192), "sectors_corrupted": ("1", 0), "sectors_changed": ("1", 0),
        "sectors_overwritten": ("1", 0), "sectors_missing": ("1", 0),
        "capacity_usable": ("B", 4 << 20), "capacity_written": ("B", 4 << 20),
        "bytes": ("B", 4 << 20)}
for k, (unit, value) in want.items():
    assert ms[k]["unit"] == unit and ms[k]["value"] == value, (k, ms[k])
assert ms["throughput"]["unit"] == "B/s" and ms["throughput"]["value"] > 0
w = {m["metric"]: m for m in tests["write"]["measurements"]}
assert w["throughput"]["unit"] == "B/s" and w["bytes"]["value"] == 4 << 20
assert tests["write"]["params"]["files"] == "2"
assert tests["read"]["params"]["verdict"] == "ok"
PY
fi
[[ -z $(ls -A "$D") ]] || sb_fail "files left behind after the JSON run"

# --write-only keeps the files and the manifest.
sb_run "$T/w" verify -q --size 8m --write-only "$D"
sb_show "$T/w.stdout" "verify --write-only"
[[ $SB_RC -eq 0 ]] || sb_fail "--write-only exited $SB_RC: $(cat "$T/w.stderr")"
grep -q '^  kept ' "$T/w.stdout" || sb_fail "--write-only does not say the files are kept"
f=$(ls "$D"/storbench-verify-*-0000.dat 2>/dev/null) || sb_fail "no data file after --write-only"
[[ -f $D/storbench-verify.manifest ]] || sb_fail "no manifest after --write-only"

# A second write phase is refused, and leaves the files as they are.
sum=$(cat "$D"/* | sha256sum)
sb_run "$T/w2" verify -q --size 8m "$D"
[[ $SB_RC -eq 1 ]] || sb_fail "a write over an earlier run's files exited $SB_RC"
[[ $(wc -l <"$T/w2.stderr") -eq 1 ]] && grep -q "already holds the files" "$T/w2.stderr" ||
    sb_fail "no clear refusal: $(cat "$T/w2.stderr")"
[[ $(cat "$D"/* | sha256sum) == "$sum" ]] || sb_fail "the refused write changed the files"

# Change the data behind storbench's back, as a failing card would:
#  sectors 10, 20, 30: one byte (corrupted), sector 40: zeros (overwritten),
#  sector 60: a copy of sector 50 (changed), the last 4 KiB cut (8 missing).
for s in 10 20 30; do
    printf 'X' | dd of="$f" bs=1 seek=$((s * 512 + 3)) conv=notrunc status=none
done
dd if=/dev/zero of="$f" bs=512 seek=40 count=1 conv=notrunc status=none
dd if="$f" bs=512 skip=50 count=1 status=none | dd of="$f" bs=512 seek=60 conv=notrunc status=none
truncate -s $(((8 << 20) - 4096)) "$f"

sb_run "$T/r" verify -q --read-only "$D"
sb_show "$T/r.stdout" "verify --read-only"
sb_show "$T/r.stderr" "stderr"
[[ $SB_RC -eq 1 ]] || sb_fail "--read-only of damaged data exited $SB_RC"
grep -q '^  sectors  16371 ok, 3 corrupted, 1 changed, 1 overwritten, 8 missing$' "$T/r.stdout" ||
    sb_fail "wrong counts after the damage"
grep -q '^  usable   8.0 MiB of 8.0 MiB written (8381952 of 8388608 bytes)$' "$T/r.stdout" ||
    sb_fail "wrong usable capacity after the damage"
grep -q '^  verdict  damaged: 13 of 16384 sectors are not as written, the first at byte 5120' "$T/r.stdout" ||
    sb_fail "wrong verdict"
[[ $(wc -l <"$T/r.stderr") -eq 1 ]] && grep -q "13 sectors are not as written (the first at byte 5120)" "$T/r.stderr" ||
    sb_fail "stderr does not say it in one line"
[[ -z $(ls -A "$D") ]] || sb_fail "--read-only left files behind: $(ls -A "$D")"

# SIGINT in the middle of the write phase: exit 130, the files removed,
# also with --write-only (an interrupted write is not worth keeping).
for mode in "" --write-only; do
    "$STORBENCH" verify -q --size 2g $mode "$D" >"$T/i.stdout" 2>"$T/i.stderr" </dev/null &
    pid=$!
    for _ in $(seq 50); do
        [[ -n $(ls "$D"/*.dat 2>/dev/null) ]] && break
        sleep 0.05
    done
    sleep 0.3
    kill -INT "$pid"
    rc=0
    wait "$pid" || rc=$?
    [[ $rc -eq 130 ]] || sb_fail "SIGINT ${mode:-(both phases)}: exit $rc, expected 130: $(cat "$T/i.stderr")"
    [[ -z $(ls -A "$D") ]] || sb_fail "SIGINT ${mode:-(both phases)}: files left behind: $(ls -A "$D")"
    grep -q '^  verdict  incomplete: interrupted$' "$T/i.stdout" || sb_fail "SIGINT: the write phase is not shown as interrupted"
done

# The runs are in the archive.
sb_run "$T/l" results list
grep -q 'verify' "$T/l.stdout" || sb_fail "the verify runs are not in the archive: $(cat "$T/l.stdout")"

# Bad input: check NAME EXIT NEEDLE -- ARGS...
echo data >"$T/file"
check() {
    local name=$1 want=$2 needle=$3 before
    shift 4
    before=$(sb_listing "$T")
    sb_run "$T/bad" "$@"
    [[ $SB_RC -eq $want ]] || sb_fail "$name: exit $SB_RC, expected $want: $(cat "$T/bad.stderr")"
    [[ ! -s $T/bad.stdout ]] || sb_fail "$name: stdout is not empty"
    [[ $(wc -l <"$T/bad.stderr") -eq 1 ]] || sb_fail "$name: not one line on stderr: $(cat "$T/bad.stderr")"
    grep -q "^storbench: .*$needle" "$T/bad.stderr" || sb_fail "$name: '$needle' not in: $(cat "$T/bad.stderr")"
    [[ $(sb_listing "$T" | grep -v '^bad\.') == $(echo "$before" | grep -v '^bad\.') ]] ||
        sb_fail "$name: the directory changed"
    echo "ok - $name: $(cat "$T/bad.stderr")"
}
check "no TARGET" 2 "no TARGET" -- verify -q
check "two TARGETs" 2 "one TARGET at a time" -- verify -q "$D" "$D"
check "missing directory" 1 "'$T/missing' does not exist" -- verify -q --size 1m "$T/missing"
check "regular file" 1 "'$T/file' is a regular file" -- verify -q --size 1m "$T/file"
check "character device" 1 "'/dev/null' is a character device" -- verify -q /dev/null
check "--size nonsense" 2 "--size:.*'lots'" -- verify -q --size lots "$D"
check "--size 0" 2 "--size:" -- verify -q --size 0 "$D"
check "--size below 4 KiB" 2 "--size: 100 is less than 4 KiB" -- verify -q --size 100 "$D"
check "--size more than free" 1 "is more than the" -- verify -q --size 1000000T "$D"
check "--file-size not 4k" 2 "--file-size" -- verify -q --size 1m --file-size 1000000 "$D"
check "--read-only without a manifest" 1 "no storbench-verify.manifest in '$D'" -- verify -q --read-only "$D"
check "--read-only with --size" 2 "--size does not go with --read-only" -- verify -q --read-only --size 1m "$D"
check "--write-only and --read-only" 2 "exclude each other" -- verify -q --write-only --read-only "$D"
check "--format csv" 2 "--format" -- verify -q -f csv "$D"
echo "garbage" >"$D/storbench-verify.manifest"
check "a manifest storbench did not write" 1 "not a manifest this storbench wrote" -- verify -q --read-only "$D"
rm -f "$D/storbench-verify.manifest"
echo "PASS"
