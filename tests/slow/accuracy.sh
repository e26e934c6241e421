#!/usr/bin/env bash
# accuracy.sh FSTYPE: storbench sweep against a device whose true speed we set.
#
# A direct-I/O loop device throttled to 10 MiB/s of writes and 20 MiB/s of
# reads carries FSTYPE; the sweep's points at 64k and above, with the default
# stop rule, must measure the limits within +-3%, none of them stopped as
# cpu-bound or unsteady (the device sets their pace). (Why multiples of 10 MiB/s:
# see sb_throttle in lib.sh.) The test file is 64 MiB on a machine with far more RAM,
# so a read served from the page cache would show GiB/s: the read limit being
# met proves the reads are cold, on the O_DIRECT path and (with --no-direct)
# on the buffered path that drops the file's cache first.
#
# vfat, where this machine's kernel cannot mount it, runs in a qemu guest
# (vm.sh; KVM where the hardware's KVM is there, else qemu's emulation):
# Debian's own kernel, which has vfat, and the storbench under test.
# There the device is the guest's 512 MiB virtio disk (a file in /dev/shm,
# O_DIRECT on this side) with the same limits in the guest's root blkio
# cgroup; the guest runs the same two sweeps and sends their CSV back, and
# the same checks below judge them. It takes about two minutes, the first
# run longer while the kernel package downloads.
set -euo pipefail
here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$here/lib.sh"

fs=${1:?usage: accuracy.sh FSTYPE}
sb_require_root
sb_require_bin
sb_require_cmd python3

write_mib=10
read_mib=20
disk_mib=512
# Set by the fixtures (lib.sh, vm.sh).
out='' dev='' mnt='' kdir='' initrd='' run=''
# The two sweeps, each followed by the mount point.
direct=(sweep -q -f csv --bs '64k,256k,1m')
buffered=(sweep -q -f csv --bs '64k,1m' --only read --no-direct)

# host_can_mount FS: this machine's kernel knows FS (loading its module if
# it has to).
host_can_mount() {
    grep -qw -- "$1" /proc/filesystems && return 0
    modprobe -q -- "$1" >/dev/null 2>&1 || return 1
    grep -qw -- "$1" /proc/filesystems
}

sb_tmpdir out
if [[ $fs == vfat ]] && ! host_can_mount vfat; then
    # shellcheck source=vm.sh source-path=SCRIPTDIR
    . "$here/vm.sh"
    echo "this kernel cannot mount vfat: measuring in a guest"
    sb_vm_require
    sb_vm_kernel kdir
    echo "guest kernel: ${kdir##*/}, accelerator: $SB_VM_ACCEL"
    # The guest's part: what the host path below does, step by step.
    cat >"$out/guest.sh" <<EOF
mkfs.vfat /dev/vda >/tmp/mkfs.out 2>&1 || fail "mkfs.vfat /dev/vda failed: \$(cat /tmp/mkfs.out)"
mkdir -p /mnt/sb && mount -t vfat /dev/vda /mnt/sb || fail "cannot mount /dev/vda"
blkio_limit /dev/vda write_bps $((write_mib << 20))
blkio_limit /dev/vda read_bps $((read_mib << 20))
export STORBENCH_DB=/tmp/slow-results.db
storbench ${direct[*]@Q} /mnt/sb >/tmp/direct.csv || fail "storbench ${direct[*]} exited \$?"
storbench ${buffered[*]@Q} /mnt/sb >/tmp/buffered.csv || fail "storbench ${buffered[*]} exited \$?"
put direct.csv /tmp/direct.csv
put buffered.csv /tmp/buffered.csv
find /mnt/sb -name 'storbench-*' >/tmp/leftover
put leftover /tmp/leftover
umount /mnt/sb || fail "cannot unmount /mnt/sb"
EOF
    sb_vm_initramfs "$kdir" "$out/guest.sh" initrd vfat
    sb_vm_run "$kdir" "$initrd" "$disk_mib" 600 run
    sb_vm_get "$run" direct.csv "$out/direct.csv"
    sb_vm_get "$run" buffered.csv "$out/buffered.csv"
    sb_vm_get "$run" leftover "$out/leftover"
else
    sb_require_loop
    sb_require_blkio
    sb_loop_create "$disk_mib" dev
    sb_mkfs "$dev" "$fs"
    sb_mount "$dev" mnt
    sb_throttle "$dev" wbps=${write_mib}M rbps=${read_mib}M

    "$SB_BIN" "${direct[@]}" "$mnt" >"$out/direct.csv"
    "$SB_BIN" "${buffered[@]}" "$mnt" >"$out/buffered.csv"
    find "$mnt" -name 'storbench-*' >"$out/leftover"
fi
cat "$out/direct.csv" "$out/buffered.csv"

# Every row: the rate, the limit it must meet, and the I/O path it must have
# taken. python3 reads the CSV so quoted fields cannot confuse the check.
check() {
    python3 - "$1" "$2" "$write_mib" "$read_mib" <<'PY'
import csv, sys
path, want_path, wmib, rmib = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
rows = list(csv.DictReader(open(path)))
for r in rows:
    truth = wmib if r["direction"] == "write" else rmib
    io = "buffered, fdatasync" if r["direction"] == "write" else want_path
    print(r["direction"], r["bs_bytes"], r["mib_per_s"], truth, r["io_path"] == io, r["complete"],
          r["stop"])
PY
}
bad=0
rows=0
while read -r dir bs got truth path_ok complete stop; do
    rows=$((rows + 1))
    [[ $complete == yes ]] || { echo "$dir $bs: incomplete"; bad=1; }
    [[ $path_ok == True ]] || { echo "$dir $bs: unexpected I/O path"; bad=1; }
    # The device sets these points' pace (~1% CPU): never the CPU rule, nor
    # the rule for a rate below the device's.
    [[ $stop != cpu-bound && $stop != unsteady ]] || { echo "$dir $bs: stopped as $stop"; bad=1; }
    printf '%s %s: ' "$dir" "$bs"
    sb_within "$got" "$truth" 3 || bad=1
done < <(check "$out/direct.csv" direct; check "$out/buffered.csv" "buffered, file cache dropped")

[[ $rows -eq 8 ]] || sb_fail "expected 8 measured points, got $rows"
[[ $bad -eq 0 ]] || sb_fail "$fs: a point missed its true speed by more than 3%"
leftover=$(head -n 1 "$out/leftover")
[[ -z $leftover ]] || sb_fail "test file left behind: $leftover"
echo "PASS: $fs within 3% of ${write_mib}/${read_mib} MiB/s"
