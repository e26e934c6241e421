#!/usr/bin/env bash
#
# job.sh: `storbench job` as a fio user runs it.
#  * seed 004's command line, with `fio` replaced by `storbench job` (only the
#    path and the size changed): both directions reported, the file it
#    created removed; where libaio cannot run (its probe's reason is
#    printed; qemu-user has no native AIO) the same line runs with
#    --ioengine=psync instead;
#  * a job file with [global], ${VAR}, two sections and stonewall;
#  * a file written in order and then read is not laid out first, unless
#    its writer could end sooner or leaves it short;
#  * --output-format=json: valid JSON in fio's shape on stdout, nothing else
#    there, and `storbench results import` reads it back as a fio run;
#  * the run is saved and `results show` prints its job table;
#  * every file of the broken corpus: exit 2, one error naming FILE:LINE;
#  * a 2 s time_based job records 4 samples of 500 ms, the last included;
#  * SIGINT during a time_based job: exit 130, no file left.
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"

sb_tmpdir T
mkdir "$T/temp" "$T/out"
export STORBENCH_DB=$T/out/results.db
failed=0
bad() {
    echo "not ok - $*"
    failed=$((failed + 1))
}

# Seed 004, verbatim but for --filename and --size (1G of random I/O would
# take minutes on a CI disk), with libaio where it can run.
engine=libaio
seed_note=
if why=$(sb_engine_unavailable libaio); then
    engine=psync
    seed_note=" (libaio skipped: $why; seed 004's line ran with psync)"
    sb_note "SKIP part: seed 004's line with ioengine=libaio: $why; it runs with psync instead"
fi
sb_run "$T/out/seed" job --randrepeat=1 --ioengine=$engine --direct=1 --gtod_reduce=1 \
    --name=test --filename="$T/temp/test" --bs=4k --iodepth=8 --size=16M \
    --readwrite=randrw --rwmixread=75
if [[ $SB_RC -ne 0 ]]; then
    bad "seed 004's line: exit status $SB_RC: $(cat "$T/out/seed.stderr")"
else
    for d in read write; do
        grep -qE "^test +$d +[0-9.]+ +[0-9.]+ " "$T/out/seed.stdout" ||
            bad "seed 004's line: no '$d' row"
    done
    # A synchronous engine has one request in flight, whatever iodepth says.
    depth=8
    [[ $engine == psync ]] && depth=1
    grep -q "randrw 75/25, bs 4k, $engine, iodepth $depth, direct" "$T/out/seed.stdout" ||
        bad "seed 004's line: the job is not described as randrw 75/25, $engine, iodepth $depth"
fi
[[ ! -e $T/temp/test ]] || bad "seed 004's line left $T/temp/test behind"

# A job file: [global], an environment variable, two jobs, stonewall.
cat >"$T/two.fio" <<'FIO'
; written for fio
[global]
directory=${SB_JOBDIR}
size=4m
bs=64k
ioengine=psync

[writer]
rw=write
end_fsync=1

[reader]   # runs after the writer
stonewall
rw=read
FIO
SB_JOBDIR=$T/temp sb_run "$T/out/file" job "$T/two.fio"
if [[ $SB_RC -ne 0 ]]; then
    bad "job file: exit status $SB_RC: $(cat "$T/out/file.stderr")"
else
    grep -qE '^writer +write ' "$T/out/file.stdout" || bad "job file: no 'writer write' row"
    grep -qE '^reader +read ' "$T/out/file.stdout" || bad "job file: no 'reader read' row"
fi
left=$(ls -A "$T/temp")
[[ -z $left ]] || bad "job file: left behind: $left"

# One file, written in order and then read: the writer creates what the
# reader reads (no layout, as dd and iozone write a new file). A layout
# comes before the writer when it could end sooner (runtime=) or starts
# past the file's end (offset=), and after it, for the rest, when it
# leaves the file short (4000k is not a whole number of 64k blocks).
for v in "size=4m" "size=4m runtime=30" "size=4m offset=64k" "size=4000k"; do
    printf '[global]\nfilename=%s\nbs=64k\nioengine=psync\n%s\n[w]\nrw=write\nend_fsync=1\n[r]\nstonewall\nrw=read\n' \
        "$T/temp/shared" "${v// /$'\n'}" >"$T/shared.fio"
    sb_run "$T/out/shared" job --no-save "$T/shared.fio"
    if [[ $SB_RC -ne 0 ]]; then
        bad "shared file ($v): exit status $SB_RC: $(cat "$T/out/shared.stderr")"
        continue
    fi
    grep -qE '^r +read ' "$T/out/shared.stdout" || bad "shared file ($v): no 'r read' row"
    laid=$(grep -c "laying out '$T/temp/shared'" "$T/out/shared.stderr")
    want=1
    [[ $v == size=4m ]] && want=0
    [[ $laid -eq $want ]] || bad "shared file ($v): laid out $laid times, expected $want"
done
[[ ! -e $T/temp/shared ]] || bad "shared file: left behind"

# fio's JSON on stdout, and nothing but it.
SB_JOBDIR=$T/temp sb_run "$T/out/json" job --output-format=json "$T/two.fio"
[[ $SB_RC -eq 0 ]] || bad "--output-format=json: exit status $SB_RC"
python3 - "$T/out/json.stdout" <<'PY' || bad "--output-format=json: not fio's shape"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["fio version"].startswith("storbench-"), d["fio version"]
jobs = d["jobs"]
assert [j["jobname"] for j in jobs] == ["writer", "reader"], jobs
assert [j["groupid"] for j in jobs] == [0, 1]
w, r = jobs[0]["write"], jobs[1]["read"]
assert w["io_bytes"] == 4 << 20 and r["io_bytes"] == 4 << 20, (w["io_bytes"], r["io_bytes"])
assert r["total_ios"] == 64 and r["bw"] == r["bw_bytes"] // 1024
for k in ("min", "max", "mean", "stddev", "N"):
    assert k in r["clat_ns"] and k in r["lat_ns"], k
assert "99.000000" in r["clat_ns"]["percentile"]
assert jobs[1]["job options"]["rw"] == "read"
PY
sb_run "$T/out/import" results import "$T/out/json.stdout"
[[ $SB_RC -eq 0 ]] || bad "results import of our fio JSON: exit $SB_RC: $(cat "$T/out/import.stderr")"

# Saved: results show prints the job table of the first job run.
sb_run "$T/out/list" results list
id=$(awk '$0 ~ /job/ && $1 ~ /^[0-9]+$/ { print $1; exit }' "$T/out/list.stdout")
if [[ -z $id ]]; then
    bad "no job run in results list: $(cat "$T/out/list.stdout")"
else
    sb_run "$T/out/show" results show "$id"
    grep -qE '^(test +read|writer +write) ' "$T/out/show.stdout" || bad "results show $id: no job table"
fi

# A sample is what completed in one 500 ms of a grid from the job's start,
# so a 2 s job has 4 however late its completions are (it had 3, each due
# 500 ms after the one before was taken, the last after the end; later 3 when
# a stall spanned a whole sample). job_accuracy (slow) checks the zeros of a
# stall.
sb_run "$T/out/samp" job --name=samp --filename="$T/temp/samp" --rw=write --bs=1m --direct=1 --size=32M \
    --time_based --runtime=2 --label sampled=yes
sb_run "$T/out/samplist" results list --filter sampled=yes
sid=$(awk '$1 ~ /^[0-9]+$/ { print $1; exit }' "$T/out/samplist.stdout")
sb_run "$T/out/sampshow" results show "$sid" -f json
python3 - "$T/out/sampshow.stdout" <<'PY' || bad "a 2 s job's samples do not cover its last interval"
import json, sys
t = json.load(open(sys.argv[1]))["targets"][0]["tests"][0]
n = {m["metric"]: len(m.get("samples") or []) for m in t["measurements"]}
assert n["throughput"] == 4 and n["iops"] == 4, n
PY
rm -f "$T/temp/samp"

# The broken job files: exit 2, the error (the last stderr line; an unset
# variable is warned about first) names FILE:LINE, nothing on stdout, nothing
# created. Run from the corpus directory, where includes are relative.
corpus=${SB_SOURCE_ROOT:-$(dirname -- "${BASH_SOURCE[0]}")/../..}/tests/data/jobs/bad
n=0
for f in "$corpus"/*.fio; do
    name=$(basename -- "$f")
    rc=0
    (cd "$corpus" && "$STORBENCH" job --no-save --directory="$T/temp" "$name") \
        >"$T/out/bad.stdout" 2>"$T/out/bad.stderr" </dev/null || rc=$?
    last=$(tail -n 1 "$T/out/bad.stderr")
    [[ $rc -eq 2 ]] || bad "$name: exit status $rc, expected 2"
    [[ $last =~ ^storbench:\ [^:]+:[0-9]+:\  ]] || bad "$name: the error does not name FILE:LINE: $last"
    [[ ! -s $T/out/bad.stdout ]] || bad "$name: wrote on stdout"
    n=$((n + 1))
done
[[ $n -ge 20 ]] || bad "only $n broken job files found in $corpus"
left=$(ls -A "$T/temp")
[[ -z $left ]] || bad "broken job files: left behind: $left"

# SIGINT in the middle of a time-based job.
"$STORBENCH" job -q --no-save --name=long --directory="$T/temp" --size=4m --rw=randread \
    --time_based --runtime=30 >"$T/out/int.stdout" 2>"$T/out/int.stderr" &
pid=$!
for _ in $(seq 50); do
    [[ -n $(ls -A "$T/temp") ]] && break
    sleep 0.1
done
sleep 0.3
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
[[ $rc -eq 130 ]] || bad "SIGINT: exit status $rc, expected 130"
left=$(ls -A "$T/temp")
[[ -z $left ]] || bad "SIGINT: left behind: $left"

if [[ $failed -ne 0 ]]; then
    for f in "$T"/out/*.stdout "$T"/out/*.stderr; do
        [[ -s $f ]] && sb_show "$f" "$(basename -- "$f")"
    done
    sb_fail "$failed checks failed"
fi
echo "ok - seed 004's line, a job file, fio JSON and its import, results show, SIGINT$seed_note"
