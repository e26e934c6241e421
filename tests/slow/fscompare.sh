#!/usr/bin/env bash
# fscompare.sh: storbench fscompare on a throttled loop device.
#  1. --fs ext2,ext4,vfat at 10 MiB/s write, 20 MiB/s read: the 1 MiB
#     points of each filesystem within 3% of the limits, one target per
#     filesystem in the order given (shown under the device's path, its
#     mkfs command kept), vfat measured where this kernel mounts it and
#     named as skipped where it does not; nothing left mounted, no
#     directory left behind, the device left holding the last filesystem.
#  2. An error on the way (xfs on a device too small for mkfs.xfs): the
#     filesystems before it measured, mkfs's reason on stderr, exit 1,
#     nothing left mounted.
#  3. SIGINT during a sweep: exit 130, unmounted, the directory removed.
#  4. Where this kernel cannot mount vfat: fscompare --fs vfat in the qemu
#     guest of vm.sh, its 1 MiB points within 3% of the limits there.
set -euo pipefail
here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
. "$here/lib.sh"

sb_require_root
sb_require_bin
sb_require_loop
sb_require_blkio
sb_require_cmd python3 mkfs.ext2 mkfs.ext4 blkid
sb_tmpdir out

write_mib=10
out="" dev="" pid="" kdir="" initrd="" run=""
read_mib=20

# leftovers WHAT: fails when a mount or a directory of fscompare remains.
leftovers() {
    if grep -q storbench-fscompare /proc/self/mounts; then
        sb_fail "$1: a filesystem is still mounted: $(grep storbench-fscompare /proc/self/mounts)"
    fi
    local d
    for d in "${TMPDIR:-/tmp}"/storbench-fscompare-*; do
        [[ -e $d ]] && sb_fail "$1: $d was left behind"
    done
    return 0
}

# ---- 1. the comparison ----------------------------------------------------
sb_loop_create 256 dev
sb_throttle "$dev" wbps=$((write_mib << 20)) rbps=$((read_mib << 20))
rc=0
"$SB_BIN" fscompare --destructive -q --no-save --bs 64k,1m -f json --fs ext2,ext4,vfat "$dev" \
    >"$out/cmp.json" 2>"$out/cmp.err" || rc=$?
cat "$out/cmp.err"
[[ $rc -eq 0 ]] || sb_fail "fscompare exited $rc: $(cat "$out/cmp.err")"
leftovers "after a comparison"
vfat_ok=0
grep -qw vfat /proc/filesystems || [[ -d /lib/modules/$(uname -r)/kernel/fs/fat ]] && vfat_ok=1
python3 - "$out/cmp.json" "$dev" "$write_mib" "$read_mib" "$vfat_ok" <<'EOF' || sb_fail "the comparison's results are wrong"
import json, sys
run = json.load(open(sys.argv[1]))
dev, wmib, rmib, vfat_ok = sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5] == "1"
want = ["ext2", "ext4"] + (["vfat"] if vfat_ok else [])
got = [t["fs_type"] for t in run["targets"]]
bad = 0
if got != want:
    print(f"filesystems {got}, expected {want}"); bad += 1
if run["labels"].get("device") != dev:
    print(f"the run is not labelled device={dev}: {run['labels']}"); bad += 1
skipped = run["host"].get("fscompare.skipped", "")
if not vfat_ok and not skipped.startswith("vfat: "):
    print(f"vfat is not named as skipped: '{skipped}'"); bad += 1
for t in run["targets"]:
    if t["path"] != dev:
        print(f"target shown as {t['path']}, not {dev}"); bad += 1
    if not t["info"].get("mkfs", "").startswith("mkfs." + t["fs_type"]):
        print(f"{t['fs_type']}: mkfs not recorded: {t['info'].get('mkfs')}"); bad += 1
    for test in t["tests"]:
        p = test["params"]
        if p.get("bs_bytes") != "1048576":
            continue
        truth = wmib if p["direction"] == "write" else rmib
        rate = next(m["value"] for m in test["measurements"] if m["metric"] == "throughput") / 1048576
        err = (rate - truth) / truth * 100
        ok = abs(err) <= 3
        print(f"{t['fs_type']} {p['direction']} 1m: {rate:.2f} MiB/s against {truth} ({err:+.1f}%): {'ok' if ok else 'OUT OF RANGE'}")
        bad += not ok
sys.exit(1 if bad else 0)
EOF
last=$(blkid -o value -s TYPE "$dev" || true)
[[ $vfat_ok == 1 ]] && want=vfat || want=ext4
[[ $last == "$want" ]] || sb_fail "the device holds '$last' after the comparison, not $want"

# ---- 2. an error on the way -----------------------------------------------
if command -v mkfs.xfs >/dev/null 2>&1; then
    rc=0
    "$SB_BIN" fscompare --destructive --force -q --no-save --bs 1m --max-time 2s \
        --fs ext2,xfs "$dev" >"$out/err.txt" 2>"$out/err.err" || rc=$?
    cat "$out/err.err"
    [[ $rc -eq 1 ]] || sb_fail "fscompare with a failing mkfs exited $rc"
    grep -q "mkfs.xfs -f -q $dev failed" "$out/err.err" || sb_fail "no mkfs error line: $(cat "$out/err.err")"
    grep -Eq '^1M +[0-9.]+' "$out/err.txt" || sb_fail "ext2 was not measured before the error: $(cat "$out/err.txt")"
    leftovers "after a failed mkfs"
else
    echo "skip - the failing mkfs: mkfs.xfs is not installed"
fi

# ---- 3. SIGINT ------------------------------------------------------------
sb_background pid "$SB_BIN" fscompare --destructive --force -q --no-save --bs 1m --min-time 20s \
    --max-time 30s --fs ext4 "$dev"
for _ in $(seq 100); do
    grep -q storbench-fscompare /proc/self/mounts && break
    sleep 0.1
done
grep -q storbench-fscompare /proc/self/mounts || sb_fail "fscompare never mounted the filesystem"
sleep 2
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
[[ $rc -eq 130 ]] || sb_fail "fscompare after SIGINT exited $rc, expected 130"
leftovers "after SIGINT"

# ---- 4. vfat in the guest -------------------------------------------------
if [[ $vfat_ok == 0 ]]; then
    # shellcheck source=vm.sh source-path=SCRIPTDIR
    . "$here/vm.sh"
    echo "this kernel cannot mount vfat: fscompare --fs vfat in a guest"
    sb_vm_require
    sb_vm_kernel kdir
    cat >"$out/guest.sh" <<EOF
blkio_limit /dev/vda write_bps $((write_mib << 20))
blkio_limit /dev/vda read_bps $((read_mib << 20))
export STORBENCH_DB=/tmp/slow-results.db
storbench fscompare --destructive -q --no-save -f csv --bs 1m --fs vfat /dev/vda >/tmp/vfat.csv ||
    fail "storbench fscompare --fs vfat exited \$?"
grep -c storbench-fscompare /proc/mounts >/tmp/mounted || true
put vfat.csv /tmp/vfat.csv
put mounted /tmp/mounted
EOF
    sb_vm_initramfs "$kdir" "$out/guest.sh" initrd vfat
    sb_vm_run "$kdir" "$initrd" 256 600 run
    sb_vm_get "$run" vfat.csv "$out/vfat.csv"
    sb_vm_get "$run" mounted "$out/mounted"
    cat "$out/vfat.csv"
    [[ $(tr -d ' \n' <"$out/mounted") == 0 ]] || sb_fail "vfat stayed mounted in the guest"
    n=0
    while IFS=, read -r target fs dir bs mib _; do
        [[ $fs == vfat && $bs == 1048576 ]] || continue
        truth=$write_mib
        [[ $dir == read ]] && truth=$read_mib
        sb_within "$mib" "$truth" 3 || sb_fail "vfat $dir 1m on $target: $mib MiB/s, not within 3% of $truth"
        n=$((n + 1))
    done <"$out/vfat.csv"
    [[ $n -eq 2 ]] || sb_fail "the guest's CSV has $n vfat 1 MiB points, not 2"
fi
echo "fscompare: ok"
