#!/usr/bin/env bash
# card_geometry.sh: storbench card --geometry on the FUSE fake card
# (lib.sh's sb_fuse_card), whose reads take at least 200 us (read_us, an SD
# card's small read) and, across a multiple of B, 2000 us more (boundary=B,
# flashbench's published steps are 20-50% of a read's time and more).
#  1. boundary=4M: the erase block found is 4 MiB, the advice 4 MiB (8192
#     sectors), 1 MiB not enough; the text says so.
#  2. boundary=8M (the control file, same device): 8 MiB.
#  3. No boundary: found no, "no clear boundary", the 4 MiB default advice.
#  4. The device is unchanged by 1-3 (sha256, and the fixture counted no
#     write): --geometry without --destructive only reads.
#  5. open_aus=4:4M:2000 (a write to an AU not among the 4 most recently
#     written costs 2 ms) with --destructive: keeps 4 open.
#  6. A directory on ext4 on the card (mounted): the device below it is
#     read, 4 MiB found; a directory in RAM (no block device): the geometry
#     is not measured, with the reason, and the run does not fail.
# Each run is bounded by --geometry-time 30s. On the 2-core development VM
# (load 4, another helper's slow tests beside), four runs: each read-only
# geometry took 0.4 to 1.1 s (3 to 7 rounds of 16 triples per unclear
# size); the open-AU rates were 225 to 588 MB/s with 1 to 4 AUs, 6.1 to 7.6
# with 5 and 6 (16 KiB writes, 2 ms each); the whole test 15 to 21 s.
set -euo pipefail
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

sb_require_root
sb_require_bin
sb_require_loop
sb_require_fuse
sb_require_cmd python3 sha256sum mkfs.ext4
sb_tmpdir T

failed=0
ok() { echo "ok - $*"; }
bad() {
    echo "not ok - $*"
    failed=$((failed + 1))
}

# geom FILE.json: KEY=VALUE lines of the geometry and open-AU tests' params,
# the sizes' states ("states=4194304:2,...") and whether each was complete.
geom() {
    python3 - "$1" <<'EOF'
import json, sys
run = json.load(open(sys.argv[1]))
for t in run["targets"]:
    for x in t["tests"]:
        if x["name"] not in ("geometry", "open AUs"):
            continue
        pre = "g_" if x["name"] == "geometry" else "o_"
        for k, v in x.get("params", {}).items():
            print("%s%s=%s" % (pre, k, v))
        print("%scomplete=%s" % (pre, "yes" if x.get("complete", True) else "no"))
        print("%serror=%s" % (pre, x.get("error") or ""))
        m = {m["metric"]: m for m in x.get("measurements", [])}
        if "size_bytes" in m:
            print("g_states=%s" % ",".join("%d:%d" % (s, st) for s, st in
                  zip(m["size_bytes"]["samples"], m["state"]["samples"])))
            print("g_elapsed=%.2f" % m["elapsed"]["value"])
        if "rate" in m:
            print("o_rates=%s" % ",".join("%.1f" % (r / 1e6) for r in m["rate"]["samples"]))
EOF
}
get() { sed -n "s/^$1=//p" "$2"; }

sb_fuse_card 256 dev boundary=4M:2000 read_us=200
sb_checksum "$dev" sum0
card=("$SB_BIN" card --no-save --geometry --geometry-time 30s)

# run NAME ARGS...: storbench card's JSON in $T/NAME.json, its params in
# $T/NAME.v; fails the test when it exits other than 0.
run() {
    local name=$1 rc=0
    shift
    "${card[@]}" -q -f json "$@" >"$T/$name.json" 2>"$T/$name.err" || rc=$?
    [[ $rc -eq 0 && -s $T/$name.json ]] || sb_fail "$name: exit $rc: $(cat "$T/$name.err")"
    geom "$T/$name.json" >"$T/$name.v"
    if [[ -n $(get g_rounds "$T/$name.v") ]]; then
        echo "$name: found $(get g_found "$T/$name.v") $(get g_erase_bytes "$T/$name.v") in" \
            "$(get g_rounds "$T/$name.v") rounds, $(get g_elapsed "$T/$name.v") s"
    fi
}

# ---- 1. boundary=4M --------------------------------------------------------
run b4 "$dev"
if [[ $(get g_found "$T/b4.v") == yes && $(get g_erase_bytes "$T/b4.v") == 4194304 ]]; then
    ok "1: boundary=4M: the erase block is 4 MiB"
else
    bad "1: boundary=4M: $(tr '\n' ' ' <"$T/b4.v")"
fi
[[ $(get g_align_sectors "$T/b4.v") == 8192 && $(get g_default_ok "$T/b4.v") == no ]] &&
    ok "1: advice 4 MiB, 8192 sectors, 1 MiB does not fit" || bad "1: advice: $(tr '\n' ' ' <"$T/b4.v")"
"${card[@]}" "$dev" >"$T/b4.txt" 2>&1 || bad "1: the text run failed: $(cat "$T/b4.txt")"
sed -n '/erase block/,$p' "$T/b4.txt"
for want in '^  erase block       4.0 MiB: a read across its boundaries takes [0-9.]+ ms more' \
    'align partitions to 4.0 MiB \(8192 sectors of 512 bytes\);' \
    "fdisk's and parted's 1 MiB default does not fit" "read-only: $dev, the device itself" \
    '^    4.0 MiB +\+[0-9.]+ µs .* step$' '^    2.0 MiB +[-+][0-9.]+ µs .* (no cost|unclear)$'; do
    grep -Eq "$want" "$T/b4.txt" || bad "1: no line matching: $want"
done

# ---- 2. boundary=8M --------------------------------------------------------
sb_fuse_control boundary=8M:2000
run b8 "$dev"
if [[ $(get g_found "$T/b8.v") == yes && $(get g_erase_bytes "$T/b8.v") == 8388608 ]]; then
    ok "2: boundary=8M: the erase block is 8 MiB"
else
    bad "2: boundary=8M: $(tr '\n' ' ' <"$T/b8.v")"
fi

# ---- 3. no boundary --------------------------------------------------------
sb_fuse_control boundary=off
run b0 "$dev"
[[ $(get g_found "$T/b0.v") == no && $(get g_known "$T/b0.v") == no &&
    $(get g_align_bytes "$T/b0.v") == 4194304 ]] &&
    ok "3: no boundary: none found, the 4 MiB default advised" ||
    bad "3: no boundary: $(tr '\n' ' ' <"$T/b0.v")"
"${card[@]}" "$dev" >"$T/b0.txt" 2>&1 || bad "3: the text run failed: $(cat "$T/b0.txt")"
grep -q '^  erase block       no clear boundary' "$T/b0.txt" &&
    grep -q 'the usual SD card AU, as the erase block was not found' "$T/b0.txt" &&
    ok "3: the text says no clear boundary" || bad "3: text: $(cat "$T/b0.txt")"

# ---- 4. read-only ----------------------------------------------------------
sb_checksum "$dev" sum1
sb_fuse_stats writes w
[[ $sum0 == "$sum1" && $w == 0 ]] && ok "4: the device is unchanged, no write reached it" ||
    bad "4: the device changed ($sum0 -> $sum1) or was written ($w writes)"

# ---- 5. open AUs -----------------------------------------------------------
sb_fuse_control boundary=4M:2000 open_aus=4:4M:2000
run oa --destructive --open-aus 8 "$dev"
sb_fuse_stats open_au_misses misses
echo "5: open AUs: $(get o_verdict "$T/oa.v") $(get o_open_aus "$T/oa.v"), MB/s by AUs" \
    "$(get o_rates "$T/oa.v"), $misses writes paid the cost"
[[ $(get o_verdict "$T/oa.v") == found && $(get o_open_aus "$T/oa.v") == 4 &&
    $(get o_au_bytes "$T/oa.v") == 4194304 ]] && ok "5: keeps 4 AUs open" ||
    bad "5: open AUs: $(tr '\n' ' ' <"$T/oa.v")"
sb_fuse_control open_aus=off

# ---- 6. a directory --------------------------------------------------------
sb_mkfs "$dev" ext4
sb_mount "$dev" mnt
run dir "$mnt"
[[ $(get g_found "$T/dir.v") == yes && $(get g_erase_bytes "$T/dir.v") == 4194304 &&
    $(get g_what_read "$T/dir.v") == "$dev, the device below $mnt" ]] &&
    ok "6: a directory on ext4: the device below it read, 4 MiB" ||
    bad "6: directory: $(tr '\n' ' ' <"$T/dir.v")"
[[ -z $(ls -A "$mnt" | grep -v '^lost+found$' || true) ]] || bad "6: files left in $mnt"
sb_tmpdir_in /dev/shm shm
run shm "$shm"
[[ $(get g_found "$T/shm.v") == no && $(get g_error "$T/shm.v") == *"is on no block device"* ]] &&
    ok "6: a directory in RAM: not measured ($(get g_error "$T/shm.v"))" ||
    bad "6: RAM directory: $(tr '\n' ' ' <"$T/shm.v")"

[[ $failed -eq 0 ]] || sb_fail "$failed checks failed"
echo "all passed"
