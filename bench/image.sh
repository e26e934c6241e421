#!/usr/bin/env bash
# image.sh: storbench image against dd and bmaptool, writing the same OS-like
# image to the same loop devices: the wall time each takes (measured here)
# and the rate each reports.
#
# The image: a SIZE_MIB (256) MiB ext4 filesystem image (mkfs.ext4 on a
# sparse file, then /usr/share copied in through a loop mount until it is
# about FILL_PCT (70) % full), so that xz has real work and a bmap has
# holes; IMG.xz is it compressed with xz -T0 (level XZ_LEVEL, 6), IMG.bmap
# its bmaptool block map. Two devices, each a direct-I/O loop device backed
# in /dev/shm (lib.sh's sb_loop_create):
#   throttled   writes throttled to W (20) MiB/s, reads to R MiB/s (0:
#               not throttled): a card-like device, which sets the pace;
#   tmpfs       not throttled: the CPU and the decompression set the pace.
# On each, REPEAT (3) rounds of, in an order rotating each round:
#   sb-raw      storbench image --destructive --force -q --no-save --no-verify --no-bmap -f json IMG DEV
#   sb-xz       the same with IMG.xz
#   sb-bmap     the same with IMG and its bmap (found beside it), no --no-bmap
#   sb-verify   storbench image --destructive --force -q --no-save --no-bmap -f json IMG DEV (verified)
#   dd-raw      dd if=IMG of=DEV bs=1M conv=fsync
#   dd-xz       xz -dc IMG.xz | dd of=DEV bs=1M iflag=fullblock conv=fsync
#   bt-raw      bmaptool copy --nobmap IMG DEV      (when bmaptool is installed)
#   bt-xz       bmaptool copy --nobmap IMG.xz DEV
#   bt-bmap     bmaptool copy --bmap IMG.bmap IMG DEV
# The rate each reports: storbench's write throughput (and verify) from its
# JSON, dd's last line, bmaptool's "copying speed". Medians over the rounds;
# ratios against sb-raw (and dd against storbench for the same input).
# `TOOLS="sb-raw dd-raw"` picks tools, `DEVICES=tmpfs` one device.
#
# Needs root, loop devices and the blkio cgroup (lib.sh skips with the
# reason otherwise); it undoes everything it set up when it exits, also on
# Ctrl-C. Build first (meson setup build-bench && ninja -C build-bench), or
# set STORBENCH. Raw numbers go to bench/data/image-<stamp>.tsv (+ .header).
# Run it on an otherwise idle machine (not during a CI run).
set -euo pipefail
here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
STORBENCH=${STORBENCH:-$here/../build-bench/storbench}
export STORBENCH
# shellcheck source=../tests/slow/lib.sh source-path=SCRIPTDIR
. "$here/../tests/slow/lib.sh"

SIZE_MIB=${SIZE_MIB:-256}
FILL_PCT=${FILL_PCT:-70}
XZ_LEVEL=${XZ_LEVEL:-6}
W=${W:-20}
R=${R:-0}
REPEAT=${REPEAT:-3}
DEVICES=${DEVICES:-throttled tmpfs}
TOOLS=${TOOLS:-sb-raw sb-xz sb-bmap sb-verify dd-raw dd-xz bt-raw bt-xz bt-bmap}

# tables DATA: the Markdown tables of DATA.tsv (medians over the rounds;
# the image's size and the bmap's mapped bytes from DATA.header).
tables() {
    python3 - "$1.tsv" "$1.header" <<'PY'
import csv, re, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
hdr = open(sys.argv[2]).read()
img = int(re.search(r"image: ext4, (\d+) bytes", hdr).group(1))
m = re.search(r"bmap maps (\d+) bytes", hdr)
mapped = int(m.group(1)) if m else 0
what = {"sb-raw": "storbench image (raw)", "sb-xz": "storbench image (.xz)",
        "sb-bmap": "storbench image (raw + bmap)", "sb-verify": "storbench image (raw, verified)",
        "dd-raw": "dd bs=1M conv=fsync", "dd-xz": "xz -dc \\| dd bs=1M conv=fsync",
        "bt-raw": "bmaptool copy --nobmap (raw)", "bt-xz": "bmaptool copy --nobmap (.xz)",
        "bt-bmap": "bmaptool copy --bmap (raw)"}
# Each tool against storbench given the same input.
ref = {"dd-raw": "sb-raw", "bt-raw": "sb-raw", "dd-xz": "sb-xz", "bt-xz": "sb-xz",
       "bt-bmap": "sb-bmap", "sb-verify": "sb-raw"}
def nums(xs):
    return [float(x) for x in xs if x not in ("-", "")]
def med(xs):
    xs = nums(xs)
    return statistics.median(xs) if xs else None
for dev in dict.fromkeys(r["device"] for r in rows):
    rs = [r for r in rows if r["device"] == dev]
    tools = list(dict.fromkeys(r["tool"] for r in rs))
    walls = {t: nums(r["wall_s"] for r in rs if r["tool"] == t) for t in tools}
    m = {t: (statistics.median(walls[t]),
             med(r["rate_Bps"] for r in rs if r["tool"] == t),
             med(r["verify_Bps"] for r in rs if r["tool"] == t),
             sorted({r["limited_by"] for r in rs if r["tool"] == t} - {"-"}))
         for t in tools}
    print("\n%s (medians of %d rounds)\n" % (dev, len({r["round"] for r in rs})))
    print("| tool | wall (s) | wall, min-max | wall / storbench, same input | rate it reports (MiB/s) "
          "| bytes / wall (MiB/s) | verify (MiB/s) | storbench: limited by |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for t in tools:
        wall, rate, ver, lim = m[t]
        base = m.get(ref.get(t, ""), (None,))[0]
        nbytes = mapped if t.endswith("bmap") else img
        print("| %s | %.2f | %.2f-%.2f | %s | %s | %.1f | %s | %s |" % (
            what.get(t, t), wall, min(walls[t]), max(walls[t]),
            "%.2f (vs %s)" % (wall / base, ref[t]) if base else "-",
            "%.1f" % (rate / 1048576) if rate else "-", nbytes / wall / 1048576,
            "%.1f" % (ver / 1048576) if ver else "-", ", ".join(lim).replace("_", " ") or "-"))
PY
}
# bench/image.sh --report bench/data/image-STAMP: the tables of an earlier run.
if [[ ${1:-} == --report ]]; then
    tables "${2:?usage: image.sh --report bench/data/image-STAMP}"
    exit 0
fi

sb_require_root
sb_require_bin
sb_require_loop
sb_require_blkio
sb_require_cmd mkfs.ext4 xz dd python3 cp
have_bmaptool=yes
if ! command -v bmaptool >/dev/null 2>&1; then
    have_bmaptool=no
    echo "bmaptool is not installed (apt-get install bmap-tools): its rows are left out" >&2
fi
[[ $(stat -f -c %T /dev/shm 2>/dev/null) == tmpfs ]] || sb_skip "/dev/shm is not a tmpfs"

tdev='' udev='' mnt='' work=''
stamp=$(date -u +%Y%m%dT%H%M%SZ)
data=$here/data/image-$stamp
mkdir -p "$here/data"
sb_tmpdir_in /dev/shm work

# ---- the image ------------------------------------------------------------------
img=$work/os.img
truncate -s "${SIZE_MIB}M" "$img"
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 -L bench-os "$img"
# (mount sets up a loop device for the file and frees it at umount)
sb_mount "$img" mnt
# /usr/share's directories, largest last, until FILL_PCT % of the
# filesystem is used (cp of a directory that does not fit stops there).
while read -r _ d; do
    used=$(df --output=pcent "$mnt" | tail -n 1 | tr -dc 0-9)
    ((used < FILL_PCT)) || break
    cp -a "$d" "$mnt/" 2>/dev/null || true
done < <(du -s /usr/share/* 2>/dev/null | sort -n)
used=$(df -B1 --output=used "$mnt" | tail -n 1 | tr -dc 0-9)
umount "$mnt"
# bmap: what bmaptool maps (the filesystem's allocated blocks); holes stay
# holes as mkfs and cp left them in the sparse file.
if [[ $have_bmaptool == yes ]]; then
    bmaptool create -o "$img.bmap" "$img" 2>/dev/null
    mapped=$(python3 -c 'import re,sys; t=open(sys.argv[1]).read(); print(int(re.search(r"<MappedBlocksCount>\s*(\d+)", t).group(1)) * int(re.search(r"<BlockSize>\s*(\d+)", t).group(1)))' "$img.bmap")
else
    mapped=
fi
xz -T0 -"$XZ_LEVEL" -k -c "$img" >"$img.xz"
img_bytes=$(stat -c %s "$img")
xz_bytes=$(stat -c %s "$img.xz")

{
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "cpu: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(nproc) CPUs"
    echo "kernel: $(uname -r); RAM: $(awk '/MemTotal/ { print $2 }' /proc/meminfo) kB; load: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "storbench: $("$SB_BIN" --version 2>&1 | sed -n 1p) ($SB_BIN)"
    echo "dd: $(dd --version | sed -n 1p); xz: $(xz --version | sed -n 1p)"
    echo "bmaptool: $([[ $have_bmaptool == yes ]] && bmaptool --version 2>&1 || echo absent)"
    echo "image: ext4, $img_bytes bytes, $used bytes used (/usr/share), bmap maps ${mapped:-?} bytes; xz -$XZ_LEVEL: $xz_bytes bytes"
    echo "devices: $DEVICES (throttled: ${W} MiB/s writes, ${R} MiB/s reads (0: none)); rounds: $REPEAT"
} | tee "$data.header" >&2

# ---- the devices ------------------------------------------------------------------
dev_mib=$((SIZE_MIB + 64))
for d in $DEVICES; do
    case $d in
        throttled)
            sb_loop_create "$dev_mib" tdev
            sb_throttle "$tdev" "wbps=${W}M" ${R:+"rbps=${R}M"}
            ;;
        tmpfs) sb_loop_create "$dev_mib" udev ;;
        *) sb_fail "DEVICES: unknown device '$d' (throttled, tmpfs)" ;;
    esac
done

# ---- one run --------------------------------------------------------------------
# run TOOL DEV: runs it; sets WALL RATE VER LIM (seconds, B/s, B/s or -,
# storbench's limited_by or -).
sb_json() { # FILE: "write_rate verify_rate limited_by"
    python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
w = v = None
lim = "-"
for t in d["targets"]:
    for te in t["tests"]:
        m = {x["metric"]: x["value"] for x in te["measurements"]}
        if te["name"] == "write":
            w = m.get("throughput")
            lim = te["params"].get("limited_by", "-").replace(" ", "_")
        elif te["name"] == "verify":
            v = m.get("throughput")
print(w if w is not None else "-", v if v is not None else "-", lim)
PY
}
# dd's last line: "N bytes (...) copied, S s, R MB/s" (units kB/s, MB/s, GB/s).
dd_rate() {
    tail -n 1 "$1" | awk -F', ' '{ split($NF, a, " "); u = a[2]
        m = u == "kB/s" ? 1e3 : u == "MB/s" ? 1e6 : u == "GB/s" ? 1e9 : u == "B/s" ? 1 : 0
        if (m) printf "%.0f\n", a[1] * m; else print "-" }'
}
# bmaptool: "... copying time: 12.3s, copying speed 20.8 MiB/sec".
bt_rate() {
    awk '/copying speed/ { for (i = 1; i <= NF; i++) if ($i == "speed") { v = $(i + 1); u = $(i + 2) }
        m = u ~ /^KiB/ ? 1024 : u ~ /^MiB/ ? 1048576 : u ~ /^GiB/ ? 1073741824 : u ~ /^bytes/ ? 1 : 0
        if (m) printf "%.0f\n", v * m; else print "-"; exit }' "$1"
}
run() {
    local tool=$1 d=$2 log=$work/run.log t0 t1
    RATE=- VER=- LIM=-
    # Every tool starts from the same state: the device's cache dropped.
    blockdev --flushbufs "$d"
    t0=$EPOCHREALTIME
    case $tool in
        sb-raw) "$SB_BIN" image --destructive --force -q --no-save --no-verify --no-bmap -f json "$img" "$d" >"$log" ;;
        sb-xz) "$SB_BIN" image --destructive --force -q --no-save --no-verify --no-bmap -f json "$img.xz" "$d" >"$log" ;;
        sb-bmap) "$SB_BIN" image --destructive --force -q --no-save --no-verify -f json "$img" "$d" >"$log" ;;
        sb-verify) "$SB_BIN" image --destructive --force -q --no-save --no-bmap -f json "$img" "$d" >"$log" ;;
        dd-raw) dd if="$img" of="$d" bs=1M conv=fsync 2>"$log" ;;
        dd-xz) xz -dc "$img.xz" | dd of="$d" bs=1M iflag=fullblock conv=fsync 2>"$log" ;;
        bt-raw) bmaptool copy --nobmap "$img" "$d" >"$log" 2>&1 ;;
        bt-xz) bmaptool copy --nobmap "$img.xz" "$d" >"$log" 2>&1 ;;
        bt-bmap) bmaptool copy --bmap "$img.bmap" "$img" "$d" >"$log" 2>&1 ;;
    esac || sb_fail "$tool on $d failed: $(tail -n 3 "$log")"
    t1=$EPOCHREALTIME
    WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    case $tool in
        sb-*) read -r RATE VER LIM < <(sb_json "$log") ;;
        dd-*) RATE=$(dd_rate "$log") ;;
        bt-*) RATE=$(bt_rate "$log") ;;
    esac
}

tools=()
for t in $TOOLS; do
    [[ $t == bt-* && $have_bmaptool == no ]] && continue
    tools+=("$t")
done
printf 'device\tround\ttool\twall_s\trate_Bps\tverify_Bps\tlimited_by\n' >"$data.tsv"
for d in $DEVICES; do
    dv=$tdev
    [[ $d == tmpfs ]] && dv=$udev
    for ((r = 0; r < REPEAT; r++)); do
        n=${#tools[@]}
        for ((k = 0; k < n; k++)); do
            t=${tools[(k + r) % n]}
            run "$t" "$dv"
            printf '%s\t%d\t%s\t%s\t%s\t%s\t%s\n' "$d" "$r" "$t" "$WALL" "$RATE" "$VER" "$LIM" >>"$data.tsv"
            printf '%-9s round %d  %-9s  %7.2f s  rate %s  verify %s  %s\n' "$d" "$r" "$t" "$WALL" "$RATE" "$VER" "$LIM" >&2
        done
    done
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$data.header" >&2

# ---- the tables -------------------------------------------------------------------
tables "$data"
echo
echo "raw numbers: $data.tsv, $data.header"
