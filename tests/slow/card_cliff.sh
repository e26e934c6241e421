#!/usr/bin/env bash
# card_cliff.sh: storbench card --cliff on the FUSE fixture's card
# (lib.sh's sb_fuse_card: a write cache that fills after N bytes, FAST then
# SLOW bytes/s, and, with cliff_recover, empties after an idle pause).
#  1. A 384 MiB card, cliff=256M:40M:8M, cliff_recover=2, --limit 320M
#     --pause 3s, saved: the cliff within 5% of 256 MiB, the rates before
#     and after within 3% of 40 and 8 MiB/s, "recovers", and after the
#     pause as fast as before within 3%; the text says so; `storbench
#     report` draws the curve (an SVG in the page, a chart in --chart list).
#  2. The same card without cliff_recover (reset): the cliff again, and
#     "none" for the recovery; the rewrite after the pause stops early.
#  3. No cliff inside the area (cliff=2G:40M:8M, a steady 40 MiB/s over
#     256 MiB): verdict "none", and no pause taken.
#  4. Without --destructive the device is refused and unchanged (sha256);
#     so is a --limit above the device's size, with one line.
#  5. A directory: ext4 on a second card (cliff=96M:16M:4M; ext4's own
#     writes count too), --limit 128M --pause 0: the cliff within 10% of
#     96 MiB, no file left; a --limit above the free space is refused with
#     one line before anything is written.
#  6. SIGINT during the write in the directory: exit 130, no file left.
set -euo pipefail
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

sb_require_root
sb_require_bin
sb_require_loop
sb_require_fuse
sb_require_cmd python3 sha256sum mkfs.ext4
sb_tmpdir T

MiB=1048576
failed=0
ok() { echo "ok - $*"; }
bad() {
    echo "not ok - $*"
    failed=$((failed + 1))
}
# within X WANT PCT: X is within PCT% of WANT (and prints both).
within() {
    python3 -c "import sys; x,w,p=map(float,sys.argv[1:]); print('  %.6g vs %.6g (%+.2f%%, limit %g%%)' % (x, w, 100*(x-w)/w, p)); sys.exit(0 if abs(x-w)<=w*p/100 else 1)" "$@"
}
# cliff FILE.json: the cliff test's params and measurements as KEY=VALUE lines.
cliff() {
    python3 - "$1" <<'EOF'
import json, sys
run = json.load(open(sys.argv[1]))
for t in run["targets"]:
    for x in t["tests"]:
        if x["name"] != "cliff":
            continue
        for k, v in x.get("params", {}).items():
            print("%s=%s" % (k, v))
        for m in x.get("measurements", []):
            print("%s=%s" % (m["metric"], m["value"]))
            if m.get("samples"):
                print("%s_n=%d" % (m["metric"], len(m["samples"])))
        print("complete=%s" % x.get("complete"))
EOF
}
get() { sed -n "s/^$1=//p" "$2"; }
card=("$SB_BIN" card -q --cliff)
start=$SECONDS

# ---- 1. a cliff that recovers ------------------------------------------------
sb_fuse_card 384 dev cliff=256M:40M:8M cliff_recover=2
rc=0
t0=$SECONDS
"${card[@]}" --db "$T/db" --destructive --limit 320M --pause 3s -f json "$dev" >"$T/1.json" 2>"$T/1.err" || rc=$?
[[ $rc == 0 && -s $T/1.json ]] || sb_fail "1: exit $rc: $(cat "$T/1.err")"
echo "1: took $((SECONDS - t0)) s"
cliff "$T/1.json" >"$T/1.v"
sb_fuse_stats idle_us idle
# The writer's stalls (idle_us: paced time it left unused) lower the rate
# it can see before the cliff (6.4 s at 40 MiB/s): held to 40 MiB/s over
# the time it was writing, as fuse_timing.sh does.
want=$(python3 -c "import sys; i=float(sys.argv[1])/1e6; t=6.4; print(40*$MiB*t/(t+i))" "$idle")
echo "1: idle_us $idle: before held to $want B/s"
if [[ $(get verdict "$T/1.v") == found && $(get recovery "$T/1.v") == recovers ]] &&
    within "$(get at_bytes "$T/1.v")" $((256 * MiB)) 5 &&
    within "$(get before "$T/1.v")" "$want" 3 &&
    within "$(get after "$T/1.v")" $((8 * MiB)) 3 &&
    within "$(get post "$T/1.v")" "$want" 3 &&
    [[ $(get curve_rate_n "$T/1.v") -ge 20 && $(get post_rate_n "$T/1.v") -ge 10 ]]; then
    ok "1: cliff at 256 MiB, 40 then 8 MiB/s, recovers after the pause"
else
    bad "1: $(tr '\n' ' ' <"$T/1.v")"
fi
"$SB_BIN" results show --db "$T/db" 1 >"$T/1.txt" 2>&1 || true
if grep -Eq "^  write cliff +1 MiB writes, direct, durable every 0.5 s, over 320.0 MiB from offset 0$" "$T/1.txt" &&
    grep -Eq "^ +the rate fell at 25[0-9.]+ MiB written: 4[0-9.]+ MB/s before \(±[0-9.]+%\), 8\.[0-9] MB/s after \(±[0-9.]+%\), 20% of before$" "$T/1.txt" &&
    grep -Eq "^ +after a 3 s idle pause: 4[0-9.]+ MB/s for 25[0-9.]+ MiB, then fell again: recovers$" "$T/1.txt"; then
    ok "1: the text says where, the rates and the recovery"
else
    bad "1: the text"
    cat "$T/1.txt" >&2
fi
cat "$T/1.txt"
"$SB_BIN" report --db "$T/db" 1 -o "$T/1.html" 2>"$T/1.rerr" || true
"$SB_BIN" report --db "$T/db" 1 --chart list >"$T/1.charts" 2>&1 || true
if grep -q "<svg" "$T/1.html" && grep -q "write rate against bytes written" "$T/1.html" &&
    grep -q "cliff at 25[0-9.]* MiB" "$T/1.html" && grep -q "write rate against bytes written" "$T/1.charts"; then
    ok "1: the report draws the curve ($(grep -c . "$T/1.charts") chart(s))"
else
    bad "1: no curve in the report: $(cat "$T/1.rerr" "$T/1.charts")"
fi

# ---- 2. no recovery ------------------------------------------------------------
sb_fuse_control cliff_recover=off reset
rc=0
t0=$SECONDS
"${card[@]}" --no-save --destructive --limit 320M --pause 3s -f json "$dev" >"$T/2.json" 2>"$T/2.err" || rc=$?
[[ $rc == 0 && -s $T/2.json ]] || sb_fail "2: exit $rc: $(cat "$T/2.err")"
echo "2: took $((SECONDS - t0)) s"
cliff "$T/2.json" >"$T/2.v"
if [[ $(get verdict "$T/2.v") == found && $(get recovery "$T/2.v") == none ]] &&
    within "$(get at_bytes "$T/2.v")" $((256 * MiB)) 5 &&
    within "$(get after "$T/2.v")" $((8 * MiB)) 3 &&
    within "$(get post "$T/2.v")" $((8 * MiB)) 3 &&
    [[ $(get note "$T/2.v") == "after the pause the rate stayed low"* ]]; then
    ok "2: without cliff_recover: the cliff, no recovery, the rewrite stopped early"
else
    bad "2: $(tr '\n' ' ' <"$T/2.v")"
fi

# ---- 3. no cliff ---------------------------------------------------------------
sb_fuse_control cliff=2G:40M:8M reset
rc=0
t0=$SECONDS
"${card[@]}" --no-save --destructive --limit 256M --pause 3s -f json "$dev" >"$T/3.json" 2>"$T/3.err" || rc=$?
took=$((SECONDS - t0))
[[ $rc == 0 && -s $T/3.json ]] || sb_fail "3: exit $rc: $(cat "$T/3.err")"
cliff "$T/3.json" >"$T/3.v"
if [[ $(get verdict "$T/3.v") == none && $(get recovery "$T/3.v") == na && $took -lt 9 ]] &&
    within "$(get before "$T/3.v")" $((40 * MiB)) 3 && [[ -z $(get post "$T/3.v") ]]; then
    ok "3: a steady rate: no cliff, no pause ($took s)"
else
    bad "3: ($took s) $(tr '\n' ' ' <"$T/3.v")"
fi

# ---- 4. refusal ----------------------------------------------------------------
sb_checksum "$dev" sum0
rc=0
"${card[@]}" --no-save --limit 64M "$dev" >"$T/4.out" 2>"$T/4.err" || rc=$?
sb_checksum "$dev" sum1
if [[ $rc != 0 && $sum0 == "$sum1" && $(wc -l <"$T/4.err") == 1 ]]; then
    ok "4: without --destructive: refused ($(cat "$T/4.err")), the device unchanged"
else
    bad "4: exit $rc, $(cat "$T/4.err")"
fi
rc=0
"${card[@]}" --no-save --destructive --limit 1G "$dev" >"$T/4b.out" 2>"$T/4b.err" || rc=$?
sb_checksum "$dev" sum1
if [[ $rc != 0 && $sum0 == "$sum1" && $(wc -l <"$T/4b.err") == 1 ]] &&
    grep -q -- "--limit: 1.0 GiB is more than '$dev' holds" "$T/4b.err"; then
    ok "4: --limit above the device's size: refused ($(cat "$T/4b.err")), the device unchanged"
else
    bad "4: --limit 1G: exit $rc, $(cat "$T/4b.err")"
fi

# ---- 5. a directory ------------------------------------------------------------
sb_fuse_card 256 dev2 cliff=96M:16M:4M
sb_mkfs "$dev2" ext4
sb_mount "$dev2" mnt
sb_fuse_control reset
rc=0
"${card[@]}" --no-save --limit 250M "$mnt" >"$T/5a.out" 2>"$T/5a.err" || rc=$?
if [[ $rc != 0 && $(wc -l <"$T/5a.err") == 1 ]] && grep -q "more than '$mnt' has free" "$T/5a.err" &&
    [[ $(sb_fuse_stats written) == 0 ]]; then
    ok "5: --limit above the free space: refused before writing ($(cat "$T/5a.err"))"
else
    bad "5: --limit 250M: exit $rc, $(cat "$T/5a.err")"
fi
rc=0
t0=$SECONDS
"${card[@]}" --no-save --limit 128M --pause 0 -f json "$mnt" >"$T/5.json" 2>"$T/5.err" || rc=$?
echo "5: took $((SECONDS - t0)) s"
[[ $rc == 0 && -s $T/5.json ]] || sb_fail "5: exit $rc: $(cat "$T/5.err")"
cliff "$T/5.json" >"$T/5.v"
left=$(find "$mnt" -mindepth 1 -not -path "$mnt/lost+found*" | wc -l)
if [[ $(get verdict "$T/5.v") == found && $(get recovery "$T/5.v") == na && $left == 0 ]] &&
    within "$(get at_bytes "$T/5.v")" $((96 * MiB)) 10 &&
    within "$(get after "$T/5.v")" $((4 * MiB)) 10; then
    ok "5: a directory: the cliff near 96 MiB, no file left"
else
    bad "5: $left file(s) left; $(tr '\n' ' ' <"$T/5.v")"
fi

# ---- 6. SIGINT -----------------------------------------------------------------
sb_fuse_control reset
"${card[@]}" --no-save --limit 128M "$mnt" >"$T/6.out" 2>"$T/6.err" &
pid=$!
sleep 2
kill -INT "$pid" || true
rc=0
wait "$pid" || rc=$?
left=$(find "$mnt" -mindepth 1 -not -path "$mnt/lost+found*" | wc -l)
if [[ $rc == 130 && $left == 0 ]] && grep -q "incomplete: interrupted" "$T/6.out"; then
    ok "6: SIGINT: exit 130, the test incomplete, no file left"
else
    bad "6: SIGINT: exit $rc, $left file(s) left"
    cat "$T/6.out" "$T/6.err" >&2
fi

echo "took $((SECONDS - start)) s"
[[ $failed == 0 ]] || sb_fail "$failed check(s) failed"
echo PASS
