#!/usr/bin/env bash
# card.sh: `storbench card` on a directory (no root needed): the text's
# parts (registers not visible with the reason, claims, AU, the sequential
# AUs, the random table, one line per check with PASS), JSON verdicts, the
# exit status, nothing left behind, and the run in the archive. Throttled
# devices, refusals and FAIL: tests/slow/card.sh.
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"
sb_require_python

sb_tmpdir T
D=$T/d
mkdir "$D"
small=(--aus 2 --area 16m --time 1s)

sb_run "$T/a" card -q "${small[@]}" --claim c10,A1 --db "$T/db" "$D"
sb_show "$T/a.stdout" "card"
sb_show "$T/a.stderr" "stderr"
[[ $SB_RC -eq 0 ]] || sb_fail "card exited $SB_RC"
for want in '^card .* \(directory, ' '^  registers  not visible: ' '^  claims     C10 \(--claim\) A1 \(--claim\)$' \
    '^  AU         4.0 MiB \(not known: 4 MiB, the SDHC maximum, assumed\)$' \
    '^  sequential write  2 AUs of 4.0 MiB in 512.0 KiB writes, direct, each made durable$' \
    '^                    slowest AU [0-9.]+ MB/s, median [0-9.]+ MB/s, all [0-9.]+ MB/s \(over 2 AUs\)$' \
    '^  random 4 KiB      over 16.0 MiB, 1.0 s each' '^                    read  IOPS +[0-9,]+' \
    '^  claim  check             measured       needs          verdict$' \
    '^  C10    sequential write  [0-9.]+ MB/s +10.0 MB/s +PASS$' \
    '^  A1     random read       [0-9,]+ IOPS +1,500 IOPS +PASS' '^  A1     random write      [0-9,]+ IOPS +500 IOPS +PASS'; do
    grep -Eq "$want" "$T/a.stdout" || sb_fail "no line matching: $want"
done
[[ -z $(ls -A "$D") ]] || sb_fail "files left behind: $(ls -A "$D")"

# JSON: a verdict per check, the AU rates as samples.
sb_run "$T/j" card -q "${small[@]}" --no-save --claim U3 -f json "$D"
[[ $SB_RC -eq 0 || $SB_RC -eq 1 ]] || sb_fail "card -f json exited $SB_RC"
python3 - "$T/j.stdout" <<'PY' || sb_fail "the JSON is not as expected"
import json, sys
run = json.load(open(sys.argv[1]))
tests = {x["name"]: x for t in run["targets"] for x in t["tests"]}
assert tests["registers"]["params"]["registers"] == "not visible"
seq = {m["metric"]: m for m in tests["sequential write"]["measurements"]}
assert seq["throughput"]["unit"] == "B/s" and len(seq["throughput"]["samples"]) == 2
assert seq["au_min"]["value"] <= seq["au_median"]["value"]
u3 = tests["U3 sequential write"]
assert u3["params"]["verdict"] in ("pass", "fail") and u3["params"]["threshold"] == "30000000"
assert u3["params"]["source"] == "--claim"
PY

# The run in the archive, shown again as it printed.
"$STORBENCH" results show --db "$T/db" 1 >"$T/show" || sb_fail "results show failed"
diff <(sed 1d "$T/a.stdout") <(sed 1d "$T/show") || sb_fail "results show differs from the run's text"
echo "ok - card on a directory"

# --geometry's options, given wrong: one line naming the option, exit 2,
# nothing left behind.
geom_bad=(
    "--geometry --geometry-time 0|--geometry-time"
    "--geometry --geometry-time 0.5s|--geometry-time: less than 1 s"
    "--geometry --open-aus 1|--open-aus: '1' is not a number from 2 to 64"
    "--geometry --open-aus 65|--open-aus: '65' is not a number from 2 to 64"
    "--geometry-time 10s|--geometry-time is an option of --geometry, which was not given"
    "--open-aus 4|--open-aus is an option of --geometry, which was not given"
)
for case in "${geom_bad[@]}"; do
    read -r -a args <<<"${case%%|*}"
    sb_run "$T/g" card -q --no-save "${args[@]}" "$D"
    [[ $SB_RC -eq 2 ]] || sb_fail "card ${args[*]}: exit $SB_RC, not 2"
    [[ $(wc -l <"$T/g.stderr") -eq 1 ]] && grep -qF -- "${case#*|}" "$T/g.stderr" ||
        sb_fail "card ${args[*]}: stderr is not one line naming '${case#*|}': $(cat "$T/g.stderr")"
    [[ -s $T/g.stdout ]] && sb_fail "card ${args[*]}: printed: $(cat "$T/g.stdout")"
    [[ -z $(ls -A "$D") ]] || sb_fail "card ${args[*]}: files left behind: $(ls -A "$D")"
done
echo "ok - --geometry's options refused"
# --cliff's options, refused before anything is touched: one line, exit 2.
refuse() {
    local want=$1
    shift
    sb_run "$T/r" card -q --no-save "$@" "$D"
    [[ $SB_RC -eq 2 ]] || sb_fail "card $*: exit $SB_RC, not 2"
    [[ $(wc -l <"$T/r.stderr") -eq 1 ]] || sb_fail "card $*: not one line: $(cat "$T/r.stderr")"
    grep -qF -- "$want" "$T/r.stderr" || sb_fail "card $*: '$(cat "$T/r.stderr")' does not say '$want'"
    [[ -z $(ls -A "$D") ]] || sb_fail "card $*: files left behind"
}
refuse "card: --limit is an option of --cliff, which was not given" --limit 64m
refuse "--bs: 3.0 KiB is not a multiple of 4 KiB up to 64 MiB" --cliff --bs 3k
refuse "--limit: 10.0 MiB is fewer than 64 writes of --bs (1.0 MiB)" --cliff --limit 10m
refuse "--pause: 'abc' is not a duration" --cliff --pause abc
refuse "card: --claim is an option of the claims check, which --cliff replaces" --cliff --claim C10
echo "ok - card --cliff: bad options refused"
