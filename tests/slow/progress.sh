#!/usr/bin/env bash
# progress.sh: the progress line tells the truth on a card-like device.
#
# ext4 on a direct-I/O loop device throttled to 10 MiB/s of writes and
# 20 MiB/s of reads. storbench runs on a pseudo-terminal (script(1)), and
# every redraw of its line is time-stamped as it arrives. Checked:
#  * no silence: from the first line to the last, no gap over 1 s between
#    redraws (layout, flushing, draining a queue and the pauses included);
#  * the rates shown are the device's: never above the limits (+12%; a
#    test's first second, a throttle's credit after idle, shows no rate but
#    "starting"), and the queued sequential test (SEQ1M Q8T1, which keeps
#    the device busy) within 12% of them in at least 3 of 4 redraws (the
#    throttle has slow moments too), so neither the page cache (GB/s) nor a
#    sample that caught a burst is shown;
#  * run: "[k/n]" counts the tests up to n, the layout is shown with its
#    bytes, and from a quarter of the run on the ETA is shown and within 25% (+1.5 s,
#    the clock's resolution and the last redraw) of the time really left;
#  * a buffered writer (a fio job with end_fsync) shows the device's rate
#    ("at the device"), at most the limit +25% on average since it began,
#    and its final fsync as "flushing" with the MiB still to go;
#  * run --profile pi: no silence, [k/7], dd's write at the device's rate
#    through its fsync (shown as flushing; 0.0 for at most 2 s, while its
#    writes only fill the cache), iozone's file created by its write test (not laid
#    out), the ETA within 25% (+1.5 s) from a quarter on;
#  * sweep and bonnie: no silence, the device's rates, bonnie's fsync shown
#    as "flushing" or at the device; bonnie's ETA for the whole run, shown
#    once the rewrite has read for a second (before, "?": no read rate), is
#    within 25% (+1.5 s) from a quarter on; a sweep point's first second
#    (and the layout's) says "starting" instead of a rate, and the time left
#    is never more than the bound the ETA gives ("up to M:SS": every point
#    to come at its maximum time);
#  * verify: each phase's first second says "starting", then rates within
#    the limits; the write's time left and the whole run's ETA (its
#    read-back counted at twice the write's rate), within 25% (+1.5 s) from
#    a quarter on;
#  * zcav reports inside its blocks, never above the read limit, its ETA
#    within 25% (+1.5 s) from a quarter on;
#  * a run whose layout time ran out (--layout-time): the layout shown with
#    the size it will have, the ETA foreseeing it, a note and the table's
#    header saying it, the sequential rates within 6% of the limits, the
#    size asked kept in the archive; a sweep whose layout time ran out
#    uses 32 MiB and says so above its tables, its points still at the
#    limits (within 3%), also with --no-direct (its buffered reads then
#    wrap at the file's end, and stay cold);
#  * a run stopped (SIGINT) during its layout prints no table, saves no run,
#    and says so.
set -euo pipefail
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

sb_require_root
sb_require_bin
sb_require_loop
sb_require_blkio
sb_require_cmd script awk

wmib=10
rmib=20
sb_loop_create 1024 dev
sb_mkfs "$dev" ext4
sb_mount "$dev" mnt
sb_throttle "$dev" wbps=${wmib}M rbps=${rmib}M
sb_tmpdir T

# record NAME ARGS...: runs storbench ARGS on a pseudo-terminal; every
# redraw (the text between two carriage returns) goes to $T/NAME.lines as
# "SECONDS TEXT", seconds since the command started.
record() {
    local name=$1 q start
    shift
    printf -v q '%q ' "$SB_BIN" "$@"
    start=$EPOCHREALTIME
    if ! script -qec "$q" /dev/null </dev/null 2>&1 |
        while IFS= read -r -d $'\r' chunk || [[ -n $chunk ]]; do
            chunk=${chunk//$'\e[K'/}
            chunk=${chunk//$'\n'/ }
            if [[ -n ${chunk// /} ]]; then
                printf '%s %s\n' "$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }')" "$chunk"
            fi
        done >"$T/$name.lines"; then
        cat "$T/$name.lines" >&2
        sb_fail "$name: storbench failed"
    fi
}

failed=0
check() { # check NAME DESCRIPTION AWK-PROGRAM [VAR=VALUE...]: the program prints what is wrong
    local name=$1 what=$2 prog=$3 out v vars=()
    shift 3
    for v in "$@"; do vars+=(-v "$v"); done
    out=$(awk -v W=$wmib -v R=$rmib "${vars[@]}" "$prog" "$T/$name.lines")
    if [[ -n $out ]]; then
        echo "not ok - $name: $what"
        printf '%s\n' "$out" | sed -n '1,5s/^/    /p'
        failed=$((failed + 1))
    else
        echo "ok - $name: $what"
    fi
}

# No gap over 1 s between redraws, from the first one to the last.
no_silence='NR > 1 && $1 - t > 1.0 { printf "%.2f s of silence between: %s | %s\n", $1 - t, prev, $0 }
    { t = $1; prev = $0 }'

# rate(text, dir): the MiB/s after "read " or "write " in a line, or -1.
rates_fn='function rate(s, d,   i, r) {
    i = index(s, d " ")
    if (!i) return -1
    r = substr(s, i + length(d) + 1)
    return r + 0
}'

# From a quarter of the run on, every ETA shown and within 25% (+1.5 s) of
# the time really left (the last redraw is the end); with unknown_ok=1 an
# unknown one ("ETA ?") passes.
eta_check='
    { t[NR] = $1; line[NR] = $0 }
    END {
        end = t[NR]
        for (i = 1; i < NR; i++) {
            if (t[i] < end / 4) continue
            if (line[i] ~ /ETA \?/ && !unknown_ok) printf "at %.1f s: ETA ?\n", t[i]
            if (!match(line[i], /ETA [0-9]+:[0-9][0-9]/)) continue
            split(substr(line[i], RSTART + 4, RLENGTH - 4), ms, ":")
            eta = ms[1] * 60 + ms[2]; left = end - t[i]
            d = eta - left; if (d < 0) d = -d
            if (d > 0.25 * left + 1.5) printf "at %.1f s: ETA %d s, really %.1f s\n", t[i], eta, left
        }
    }'

record run run --no-save --size 64m --time 2s "$mnt"
check run "no silence over 1 s" "$no_silence"
check run "tests counted [k/n] up to n" '
    match($0, /\[[0-9]+\/[0-9]+\]/) {
        split(substr($0, RSTART + 1, RLENGTH - 2), kn, "/")
        if (kn[1] + 0 < k) print "the count went back: " $0
        k = kn[1] + 0; n = kn[2] + 0
    }
    END { if (!n || k != n) print "last test " k " of " n }'
check run "the layout shown with its bytes at the device's rate" '
    / laying out / { seen = 1; if (match($0, /MiB\/s/) && $0 ~ /of 64.0 MiB/) ok = 1 }
    END { if (!seen || !ok) print "no layout line with its bytes" }'
check run "rates within the limits, SEQ1M Q8T1 at them" "$rates_fn"'
    / measuring / {
        r = rate($0, "read"); w = rate($0, "write")
        if (r > R * 1.12 || w > W * 1.12) print "above the limits: " $0
        if ($3 == "SEQ1M" && $4 == "Q8T1:") {
            seq++
            if ((r >= 0 && r < R * 0.88) || (w >= 0 && w < W * 0.88)) { low++; last_low = $0 }
        }
    }
    END {
        if (!seq) print "no SEQ1M Q8T1 line"
        if (low * 4 > seq) print low " of " seq " SEQ1M Q8T1 lines below the limits, as: " last_low
    }'
check run "ETA within 25% of the time left from a quarter on" "$eta_check"

# The default run's layout ends at its time (--layout-time; 30 s by default)
# with what it wrote, and the tests use that: here 8 s of a 256 MiB file,
# about 80 MiB at 10 MiB/s. The progress line shows the size it will have,
# the ETA foresees the cut, the note and the table say it, and the rates
# stay at the limits (within 6%: a 2 s test may keep up to one 100 ms slice
# of the throttle's credit; the 5 s tests of bench/RESULTS.md §9 read 0.9%
# and 1.5% above 20 and 24 MiB/s).
record runcut run --db "$T/cut.db" --size 256m --layout-time 8s --time 2s "$mnt"
check runcut "no silence over 1 s" "$no_silence"
check runcut "the layout shown with the size its time allows" '
    / laying out / && match($0, /of [0-9.]+ MiB/) { last = substr($0, RSTART + 3) + 0 }
    END { if (last < 64 || last > 100) print "last layout line: of " last " MiB, expected 64-100" }'
check runcut "ETA within 25% of the time left from a quarter on" "$eta_check"
check runcut "the cut said in a note and in the table, the rates at the limits" '
    match($0, /laid out [0-9]+ MiB of .* when its time ran out/) {
        n = substr($0, RSTART + 9) + 0
        if (n < 64 || n > 100) print "laid out " n " MiB, expected 64-100"
        note = 1
    }
    match($0, /[0-9]+ MiB test file \(of 256 asked: the layout.s time ran out\)/) {
        head = 1
        if (substr($0, RSTART) + 0 != n) print "the table says " substr($0, RSTART) + 0 " MiB, the note " n
    }
    match($0, /SEQ1M Q8T1 +[0-9.]+ +[0-9.]+ +[0-9.]+[mu]?s +[0-9.]+/) {
        split(substr($0, RSTART, RLENGTH), f, / +/)
        if (f[3] < R * 0.94 || f[3] > R * 1.06 || f[6] < W * 0.94 || f[6] > W * 1.06)
            print "SEQ1M Q8T1 read " f[3] " write " f[6] " MiB/s, limits " R " and " W
        seq = 1
    }
    END { if (!note) print "no note"; if (!head) print "no header saying the cut"; if (!seq) print "no SEQ1M Q8T1 row" }'
"$SB_BIN" results show 1 --db "$T/cut.db" -f json >"$T/cut.json"
if grep -q '"size_asked": "268435456"' "$T/cut.json"; then
    echo "ok - runcut: the archived tests keep the size asked"
else
    echo "not ok - runcut: no size_asked 268435456 in the archived run"
    failed=$((failed + 1))
fi
"$SB_BIN" report 1 --db "$T/cut.db" >"$T/cut.html"
"$SB_BIN" results compare 1 1 --db "$T/cut.db" >"$T/cut.compare"
if grep -qE '<b>Run 1, .*: [0-9.]+ MiB test file of 256\.0 MiB asked\.</b>' "$T/cut.html" &&
    grep -qE "^run 1, .*: [0-9.]+ MiB test file \(of 256\.0 MiB asked: the layout's time ran out\)$" \
        "$T/cut.compare"; then
    echo "ok - runcut: the report and results compare say the cut"
else
    echo "not ok - runcut: the report or results compare does not say the cut"
    failed=$((failed + 1))
fi
[[ -z $(find "$mnt" -name 'storbench-*' -print -quit) ]] || {
    echo "not ok - runcut: a test file was left in $mnt"
    failed=$((failed + 1))
}

# The pi profile: dd's 520 MiB buffered write, shown at the device's rate
# through its final fsync (never "0.0 MiB/s" while the page cache drains),
# then fio's and iozone's tests; iozone's write creates its file, as
# iozone does (only fio's file is laid out); its first read comes at 70%
# of the run, so the ETA counts the reads to come at twice the writes'
# rate until then.
record pi run --no-save --profile pi "$mnt"
check pi "no silence over 1 s" "$no_silence"
check pi "tests counted [k/7] up to 7" '
    match($0, /\[[0-9]+\/[0-9]+\]/) {
        split(substr($0, RSTART + 1, RLENGTH - 2), kn, "/")
        if (kn[1] + 0 < k) print "the count went back: " $0
        k = kn[1] + 0; n = kn[2] + 0
    }
    END { if (n != 7 || k != 7) print "last test " k " of " n }'
check pi "dd at the device's rate, iozone's file not laid out" "$rates_fn"'
    / dd: (measuring|flushing) / {
        w = rate($0, "write")
        if ($0 !~ /at the device/ || w > W * 1.25) print "dd: " $0
        dd++; fl += / flushing /
        # 0.0 while its writes only fill the cache (1-2 s), not through
        # its fsync (the issue: 50 s of it).
        if (!(w > 0)) { if (!z0) z0 = $1; z1 = $1 }
    }
    / measuring / && ($4 == "fio-randread:" || $4 ~ /^iozone-/) {
        r = rate($0, "read"); w = rate($0, "write")
        if (r > R * 1.12 || w > W * 1.12) print "above the limits: " $0
    }
    /laying out .*storbench-pi-iozone/ { print "the iozone file laid out: " $0; exit }
    END {
        if (!dd || !fl) print dd " dd lines, " fl " of them flushing"
        if (z1 - z0 > 2) printf "dd at 0.0 MiB/s from %.1f to %.1f s\n", z0, z1
    }'
check pi "ETA within 25% of the time left from a quarter on" "$eta_check"

record buffered job --no-save --name=buf --rw=write --bs=64k --size=48m --end_fsync=1 \
    "--directory=$mnt"
check buffered "no silence over 1 s" "$no_silence"
check buffered "buffered writes shown at the device's rate" "$rates_fn"'
    / measuring | flushing / {
        if ($0 !~ /at the device/) { print "not the device rate: " $0; next }
        if (rate($0, "write") > W * 1.25) print "above the limit: " $0
        n++
    }
    / flushing .* MiB to go/ { fl++ }
    END { if (!n) print "no progress line"; if (!fl) print "no flushing line with the MiB to go" }'

record sweep sweep --no-save --bs 4k,1m --file-size 32m --max-time 3s "$mnt"
check sweep "no silence over 1 s" "$no_silence"
check sweep "rates within the limits, from the first redraw" '
    match($0, /\[[0-9]+\/[0-9]+\]/) {
        if (!match($0, /[0-9.]+ MiB\/s/)) next
        r = substr($0, RSTART) + 0
        if ($0 ~ / write / && r > W * 1.12) print "above the limit: " $0
        if ($0 ~ / read / && r > R * 1.12) print "above the limit: " $0
        if ($0 ~ / laying out / && r > W * 1.12) print "above the limit: " $0
    }'

check sweep "a point's first second says starting" '
    / (read|write) [0-9]+[kmKM]? +starting / { n++ }
    END { if (n < 2) print "no point began with starting" }'
check sweep "the time left never beyond the ETA's bound (up to ...)" '
    { t[NR] = $1; line[NR] = $0 }
    END {
        end = t[NR]
        for (i = 1; i < NR; i++) {
            if (!match(line[i], /up to [0-9]+:[0-9][0-9]/)) continue
            n++
            split(substr(line[i], RSTART + 6, RLENGTH - 6), ms, ":")
            bound = ms[1] * 60 + ms[2]
            if (end - t[i] > bound + 1.5) printf "at %.1f s: up to %d s, really %.1f s\n", t[i], bound, end - t[i]
        }
        if (!n) print "no bound shown"
    }'

# The sweep's layout ends at its time too (--layout-time; 5 s by default)
# with what it wrote, at least 32 MiB: here 2 s at 10 MiB/s would be 20 MiB
# of a 256 MiB file, so 32. The text says so above its tables, and the
# points, which wrap at the file's end (a 3 s read of 20 MiB/s wraps once
# or twice), still measure the limits (within 3%).
cut_checks='
    match($0, /[0-9.]+ MiB test file \(of 256.0 MiB asked: the layout.s time ran out\)/) {
        n = substr($0, RSTART) + 0
        if (n != 32) print "a test file of " n " MiB, expected 32"
        note = 1
    }
    /Write throughput/ { d = "write"; next }
    /Read throughput/ { d = "read"; next }
    /CPU %/ { d = "" }
    d != "" && ($2 == "4k" || $2 == "1M") {
        lim = d == "write" ? W : R
        if ($3 < lim * 0.97 || $3 > lim * 1.03) print d " " $2 ": " $3 " MiB/s, the limit " lim
        rows++
    }
    END { if (!note) print "no note of the cut"; if (rows != 4) print rows + 0 " of the 4 rows found" }'
record sweepcut sweep --no-save --bs 4k,1m --max-time 3s --file-size 256m --layout-time 2s \
    "$mnt"
check sweepcut "no silence over 1 s" "$no_silence"
check sweepcut "the cut said above the tables, the rates at the limits" "$cut_checks"
# Without O_DIRECT the reads are buffered: each wrap drops the file's cache
# (they stay cold) and starts readahead again, whose bursts around the wrap
# the rate's slope leaves out (stats.h, breaks).
record sweepcut_buffered sweep --no-save --no-direct --bs 4k,1m --max-time 3s --file-size 256m \
    --layout-time 2s "$mnt"
check sweepcut_buffered "buffered reads that wrap stay at the limits" "$cut_checks"
[[ -z $(find "$mnt" -name 'storbench-*' -print -quit) ]] || {
    echo "not ok - sweepcut: a test file was left in $mnt"
    failed=$((failed + 1))
}

record bonnie bonnie --no-save -d "$mnt" -s 48:8k:2000 -n 0 -f
check bonnie "no silence over 1 s" "$no_silence"
check bonnie "tests counted [k/4] (write, rewrite, read, seeks)" '
    match($0, /\[[0-9]+\/[0-9]+\] bonnie/) {
        split(substr($0, RSTART + 1, RLENGTH - 8), kn, "/")
        if (kn[1] + 0 < k) print "the count went back: " $0
        k = kn[1] + 0; n = kn[2] + 0
    }
    END { if (n != 4 || k < 3) print "last test " k " of " n }'
check bonnie "the run's ETA shown once the rewrite has read" '
    /bonnie (read|seeks):/ && / ETA [0-9]+:[0-9][0-9]/ { n++ }
    END { if (!n) print "no ETA for the whole run in the read test or the seeks" }'
check bonnie "ETA within 25% of the time left from a quarter on" "$eta_check" unknown_ok=1
check bonnie "write tests at the device's rate" '
    /bonnie (write|rewrite):/ {
        if ($0 !~ /at the device/) print "not the device rate: " $0
        seen = 1
    }
    END { if (!seen) print "no write test shown" }'

# verify writes and reads back 32 MiB: each phase's first second says
# starting, then the device's rates.
record verify verify --no-save --size 96m "$mnt"
check verify "no silence over 1 s" "$no_silence"
check verify "starting, then the device's rates" '
    / (write|read) / {
        if ($0 ~ /starting/) { st[$4]++; next }
        if (!match($0, /[0-9.]+ MiB\/s/)) next
        r = substr($0, RSTART) + 0; n++
        if ($4 == "write" && r > W * 1.12) print "above the limit: " $0
        if ($4 == "read" && r > R * 1.12) print "above the limit: " $0
    }
    END { if (!st["write"] || !n) print "no starting write phase or no rate shown" }'
check verify "the write shows its time left and the run's, read back at twice its rate" '
    / write .* left  ETA [0-9]+:[0-9][0-9]/ { n++ }
    END { if (!n) print "no write line with its time left and the run'"'"'s ETA" }'
check verify "ETA within 25% of the time left from a quarter on" "$eta_check"

# zcav, read, blocks of 64 MiB (3.2 s each at the limit): it reports inside
# a block too, at the device's rate.
record zcav zcav --no-save -b 64 -r 128 "$dev"
check zcav "no silence over 1 s" "$no_silence"
check zcav "rates within the read limit" '
    / pass / && match($0, /[0-9.]+ MiB\/s/) {
        n++
        if (substr($0, RSTART) + 0 > R * 1.12) print "above the limit: " $0
    }
    END { if (n < 4) print "only " n " progress lines" }'
check zcav "ETA within 25% of the time left from a quarter on" "$eta_check"

# A run stopped during its layout measured nothing: it says so, and saves
# nothing (no archive appears).
"$SB_BIN" run --size 64m --time 1s --db "$T/int.db" "$mnt" >"$T/int.out" 2>"$T/int.err" &
pid=$!
sleep 1.5
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
if [[ $rc -eq 130 && ! -s $T/int.out && ! -e $T/int.db ]] &&
    grep -qx 'storbench: nothing was measured, so no run was saved' "$T/int.err"; then
    echo "ok - run stopped during its layout: nothing printed, nothing saved, and said so"
else
    echo "not ok - run stopped during its layout: exit $rc, stderr: $(cat "$T/int.err")"
    failed=$((failed + 1))
fi

[[ $failed -eq 0 ]] || sb_fail "$failed progress checks failed (lines in $T)"
