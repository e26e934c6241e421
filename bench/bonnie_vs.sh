#!/usr/bin/env bash
# bonnie_vs.sh: storbench bonnie against bonnie++ 2.00a, and storbench zcav
# against zcav 2.00a, on one throttled loop device whose true speed we set:
# the time each takes and how far each lands from the true speed.
#
# ext4 on a 1 GiB direct-I/O loop device, throttled (blkio) to W MiB/s of
# writes, R MiB/s of reads and I reads per second (defaults 16, 16, 400).
#
#   storbench   storbench bonnie -f -n 0 -s 256:8k:2000 (256 MiB file)
#   bonnie++ honest
#               bonnie++ -f -n 0 -s 512:8k:2000 -r 256, run inside a memory
#               cgroup limited to 256 MiB: its rule (a file of twice the RAM)
#               with RAM that really is 256 MiB for its page cache. (2 x 24
#               GiB of file is impossible on this machine.)
#   bonnie++ fooled
#               bonnie++ -f -n 0 -s 256:8k:2000 -r 128: the small file, with
#               -r claiming 128 MiB so that bonnie++ accepts it, on a machine
#               with 24 GiB of page cache.
#   zcav        zcav -b 16 -r 128 DEV  vs  storbench zcav -b 16 -r 128 DEV
#
# Needs root, losetup, the blkio and memory cgroups (v1), bonnie++ and zcav.
# Prints one table; the raw outputs go to bench/data/bonnie_vs-DATE/.
set -euo pipefail
here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
. "$here/../tests/slow/lib.sh"

W=${W:-16}
R=${R:-16}
I=${I:-400}
sb_require_root
sb_require_bin
sb_require_loop
sb_require_blkio
sb_require_cmd bonnie++
sb_require_cmd zcav
memcg_root=/sys/fs/cgroup/memory
[[ -w $memcg_root/cgroup.procs ]] || sb_skip "needs the cgroup v1 memory controller at $memcg_root"

out=$here/data/bonnie_vs-$(date -u +%Y%m%dT%H%M)
mkdir -p "$out"
memcg=$memcg_root/sb-bonnie-vs-$$
mkdir "$memcg"
trap 'rmdir "$memcg" 2>/dev/null || true' EXIT
echo $((256 << 20)) >"$memcg/memory.limit_in_bytes"

sb_loop_create 1024 dev
sb_mkfs "$dev" ext4
sb_mount "$dev" mnt
sb_throttle "$dev" wbps=${W}M rbps=${R}M riops=$I
{
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "kernel: $(uname -r); RAM: $(awk '/MemTotal/ {print $2}' /proc/meminfo) kB; load: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "device: $dev, ext4, throttled to $W MiB/s write, $R MiB/s read, $I reads/s"
    echo "storbench: $("$SB_BIN" --version); bonnie++: $(dpkg-query -W -f '${Version}' bonnie++ 2>/dev/null)"
} | tee "$out/machine.txt"

now() { date +%s.%N; }
# run NAME CMD...: runs CMD, CSV on stdout to $out/NAME.csv, stderr to
# $out/NAME.err, and records the seconds it took.
declare -A took
run() {
    local name=$1 t0 t1
    shift
    t0=$(now)
    "$@" >"$out/$name.csv" 2>"$out/$name.err" || { cat "$out/$name.err"; sb_fail "$name failed"; }
    t1=$(now)
    took[$name]=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }')
}
in_memcg() {
    sh -c 'echo $$ >"$0/cgroup.procs" && shift && exec "$@"' "$memcg" x "$@"
}

run storbench "$SB_BIN" bonnie -q -f -n 0 -s 256:8k:2000 --no-save -m storbench "$mnt"
run honest in_memcg bonnie++ -q -f -n 0 -s 512:8k:2000 -r 256 -u root -m honest -d "$mnt"
run fooled bonnie++ -q -f -n 0 -s 256:8k:2000 -r 128 -u root -m fooled -d "$mnt"

t0=$(now)
zcav -b 16 -r 128 "$dev" >"$out/zcav.log" 2>"$out/zcav.err"
took[zcav]=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }')
t0=$(now)
"$SB_BIN" zcav -q -b 16 -r 128 --no-save "$dev" >"$out/sbzcav.log" 2>"$out/sbzcav.err"
took[sbzcav]=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }')

pct() { awk -v v="$1" -v t="$2" 'BEGIN { if (v == "" || v ~ /\+/) print "-"; else printf "%+.1f%%", (v - t) / t * 100 }'; }
mibs() { awk -v k="$1" 'BEGIN { if (k ~ /\+/ || k == "") print k; else printf "%.1f", k / 1024 }'; }
printf '\n| run | time (s) | block output MiB/s (vs %s) | block input MiB/s (vs %s) | seeks/s (vs %s) |\n' "$W" "$R" "$I"
printf '|---|---|---|---|---|\n'
for name in storbench honest fooled; do
    IFS=, read -r -a f < <(grep '^1\.98,' "$out/$name.csv")
    w=$(mibs "${f[11]}")
    r=$(mibs "${f[17]}")
    printf '| %s | %s | %s (%s) | %s (%s) | %s (%s) |\n' "$name" "${took[$name]}" \
        "$w" "$(pct "$w" "$W")" "$r" "$(pct "$r" "$R")" "${f[19]}" "$(pct "${f[19]}" "$I")"
done
zmean() { awk '/^[0-9]/ { s += $2; n++ } END { if (n) printf "%.2f", s / n; else print "-" }' "$1"; }
zblocks() { grep -c '^[0-9]' "$1" || true; }
zhidden() { grep -c '++++' "$1" || true; }
printf '\n| run | time (s) | mean of the MiB/s column (vs %s) | blocks printed | blocks hidden (++++) | summary line |\n' "$R"
printf '|---|---|---|---|---|---|\n'
for name in zcav sbzcav; do
    m=$(zmean "$out/$name.log")
    printf '| %s | %s | %s (%s) | %s | %s | %s |\n' "$name" "${took[$name]}" "$m" "$(pct "$m" "$R")" \
        "$(zblocks "$out/$name.log")" "$(zhidden "$out/$name.log")" "$(grep -m 1 '^# Read' "$out/$name.log")"
done
echo
echo "raw outputs: $out"
