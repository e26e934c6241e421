# shellcheck shell=bash
#
# tests/slow/vm.sh: a qemu guest for the slow tests whose file system this
# machine's kernel cannot mount. Source it after lib.sh; every fixture here
# registers its undo with lib.sh, so the guest, its disk and its files are
# gone when the test ends, also when it fails or is interrupted.
#
#     sb_vm_require                          # skips without qemu; sets SB_VM_ACCEL
#     sb_vm_kernel kdir                      # sets $kdir: Debian's kernel, unpacked
#     sb_vm_initramfs "$kdir" "$script" initrd vfat   # /init runs $script
#     sb_vm_run "$kdir" "$initrd" 512 600 run  # boots; sets $run (its output)
#     sb_vm_get "$run" direct.csv "$out/direct.csv"
#
# The kernel is the one Debian's linux-image-amd64 depends on now, fetched
# with `apt-get download`, unpacked with `dpkg-deb -x` (and depmod) into a cache
# ($SB_VM_CACHE, which meson sets to a directory in the build directory;
# else /var/cache/storbench-test), never installed on this machine. A cached
# kernel is used again as long as it is the current package, and when the
# archive cannot be reached.
#
# The initramfs is made for each run: busybox, the storbench under test
# ($SB_BIN) and mkfs.vfat with the shared libraries ldd names, and the
# modules asked for with those they depend on (modules.dep), decompressed.
# Its /init mounts proc, sysfs, devtmpfs, a tmpfs on /tmp and the cgroup v1
# blkio hierarchy on /sys/fs/cgroup/blkio, loads the modules, waits for
# /dev/vda and runs the test's script (busybox sh) in a subshell, then powers
# the guest off. The script can use:
#     fail MSG...                  end the run: the test fails with MSG
#     blkio_limit DEV KIND BYTES   KIND read_bps|write_bps|read_iops|write_iops,
#                                  in the root blkio cgroup, which throttles
#                                  every bio of DEV (write-back too)
#     put NAME FILE                send FILE back to the host as NAME
# The disk is a raw file of DISK_MIB MiB in /dev/shm, the guest's virtio disk
# /dev/vda, opened with O_DIRECT on this side (cache=none, aio=native), so
# this machine's page cache does not stand between the guest and memory. The
# guest's console (ttyS0) goes to console.log; what put sends goes over a
# serial port of its own (ttyS1) to data.log, where kernel messages cannot
# come between its lines.

# SB_VM_CACHE: where the kernel package is unpacked.
SB_VM_CACHE=${SB_VM_CACHE:-/var/cache/storbench-test}

# sb_vm_require: skip unless a guest can run here: qemu-system-x86_64 and
# the tools that make the initramfs are there. Sets SB_VM_ACCEL to how the
# guest runs: kvm where /dev/kvm opens and is the hardware's KVM (kvm_intel
# or kvm_amd), else tcg, qemu's own emulation of the CPU, slower but with the
# same clock. Under a paravirtual KVM (kvm_pvm) Debian's kernel hangs
# before its first message.
sb_vm_require() {
    [[ $(uname -m) == x86_64 ]] || sb_skip "the guest is an amd64 machine; this one is $(uname -m)"
    sb_require_cmd qemu-system-x86_64 busybox mkfs.vfat cpio gzip ldd dpkg-deb depmod apt-get apt-cache
    SB_VM_ACCEL=tcg
    if [[ -d /sys/module/kvm_intel || -d /sys/module/kvm_amd ]] && (exec 3<>/dev/kvm) 2>/dev/null; then
        SB_VM_ACCEL=kvm
    fi
}

# sb_vm_kernel [VAR]: the directory where Debian's current amd64 kernel
# package is unpacked (boot/vmlinuz-*, boot/config-*, lib/modules/*/).
# Downloads it when it is not in $SB_VM_CACHE; skips when it can neither be
# downloaded nor found there.
sb_vm_kernel() {
    local _sb_var=${1:-} _sb_pkg _sb_ver _sbvm_dir _sbvm_dl _sb_deb _sb_new _sb_err _sb_f
    _sb_check_var "$_sb_var"
    mkdir -p -- "$SB_VM_CACHE" || sb_fail "sb_vm_kernel: cannot create $SB_VM_CACHE"
    _sb_vm_kernel_pkg _sb_pkg _sb_ver || true
    if [[ -z $_sb_pkg ]]; then
        # No list of packages yet, or an old one: read the archive again.
        apt-get -qq update >/dev/null 2>&1 || true
        _sb_vm_kernel_pkg _sb_pkg _sb_ver || true
    fi
    if [[ -n $_sb_pkg && -f $SB_VM_CACHE/${_sb_pkg}_$_sb_ver/.complete ]]; then
        _sb_set "$_sb_var" "$SB_VM_CACHE/${_sb_pkg}_$_sb_ver"
        return 0
    fi
    if [[ -n $_sb_pkg ]]; then
        sb_tmpdir _sbvm_dl
        chmod 755 "$_sbvm_dl" # apt downloads as its own user
        if ! (cd "$_sbvm_dl" && apt-get -qq download "$_sb_pkg") >"$_sbvm_dl/err" 2>&1; then
            apt-get -qq update >/dev/null 2>&1 || true
            _sb_vm_kernel_pkg _sb_pkg _sb_ver || true
            (cd "$_sbvm_dl" && apt-get -qq download "$_sb_pkg") >"$_sbvm_dl/err" 2>&1 || true
        fi
        _sb_deb=$(find "$_sbvm_dl" -maxdepth 1 -name "${_sb_pkg}_*.deb" -print -quit)
        if [[ -n $_sb_deb ]]; then
            _sbvm_dir=$SB_VM_CACHE/${_sb_pkg}_$_sb_ver
            # Unpacked beside its final name, renamed when complete: an
            # interrupted run leaves no half kernel behind that looks whole.
            _sb_new=$(mktemp -d "$SB_VM_CACHE/storbench-test.XXXXXX") ||
                sb_fail "sb_vm_kernel: mktemp failed in $SB_VM_CACHE"
            _sb_journal_add D "$_sb_new"
            if ! _sb_err=$(dpkg-deb -x "$_sb_deb" "$_sb_new" 2>&1); then
                sb_fail "dpkg-deb -x $_sb_deb: $_sb_err"
            fi
            # The package leaves modules.dep to its postinst: make it here.
            _sb_f=$(find "$_sb_new/lib/modules" -mindepth 1 -maxdepth 1 -type d -print -quit)
            if ! _sb_err=$(depmod -b "$_sb_new" "${_sb_f##*/}" 2>&1); then
                sb_fail "depmod -b $_sb_new ${_sb_f##*/}: $_sb_err"
            fi
            : >"$_sb_new/.complete"
            rm -rf -- "$_sbvm_dir"
            mv -T -- "$_sb_new" "$_sbvm_dir" || sb_fail "sb_vm_kernel: cannot rename $_sb_new to $_sbvm_dir"
            rm -f -- "$_sb_deb"
            _sb_vm_prune "${_sbvm_dir##*/}"
            _sb_set "$_sb_var" "$_sbvm_dir"
            return 0
        fi
        _sb_err=$(tail -n 3 "$_sbvm_dl/err")
    fi
    # The archive cannot be reached: a kernel fetched before does as well.
    _sbvm_dir=$(find "$SB_VM_CACHE" -mindepth 2 -maxdepth 2 -name .complete -printf '%h\n' 2>/dev/null | sort -V | tail -n 1)
    [[ -n $_sbvm_dir ]] ||
        sb_skip "cannot download Debian's kernel package (${_sb_pkg:-linux-image-amd64 names none}): ${_sb_err:-apt-cache knows no linux-image-amd64}"
    _sb_log "cannot download ${_sb_pkg:-the current kernel}; using the cached ${_sbvm_dir##*/}"
    _sb_set "$_sb_var" "$_sbvm_dir"
}

# sb_vm_initramfs KDIR SCRIPT [VAR [MODULE...]]: make a gzip'ed cpio
# initramfs in a new directory of the working directory whose /init runs
# the file SCRIPT (see the header), with MODULE... of the kernel in KDIR and
# what they need. vfat brings the character sets of the kernel's default
# codepage and iocharset. Sets VAR to its path.
sb_vm_initramfs() {
    local _sb_k=${1:-} _sb_script=${2:-} _sb_var=${3:-} _sbvm_dir _sb_root _sb_m _sb_f _sb_out
    [[ -d $_sb_k && -r $_sb_script ]] || sb_fail "usage: sb_vm_initramfs KDIR SCRIPT [VAR [MODULE...]]"
    _sb_check_var "$_sb_var"
    shift 3 || shift $#
    sb_require_bin
    sb_tmpdir _sbvm_dir
    _sb_root=$_sbvm_dir/root
    mkdir -p "$_sb_root"/{bin,sbin,dev,proc,sys,tmp,mnt,modules} || sb_fail "sb_vm_initramfs: mkdir in $_sb_root"
    _sb_vm_copy_bin "$_sb_root" "$(command -v busybox)" /bin/busybox
    _sb_vm_copy_bin "$_sb_root" "$SB_BIN" /bin/storbench
    _sb_vm_copy_bin "$_sb_root" "$(command -v mkfs.vfat)" /sbin/mkfs.vfat
    mknod "$_sb_root/dev/console" c 5 1 || sb_fail "sb_vm_initramfs: mknod dev/console"
    # The modules, in the order they load: what each depends on first.
    : >"$_sb_root/modules/order"
    for _sb_m in virtio_pci virtio_blk "$@"; do
        _sb_vm_module "$_sb_k" "$_sb_root" "$_sb_m"
        if [[ $_sb_m == vfat ]]; then
            _sb_f=$(_sb_vm_config "$_sb_k" CONFIG_FAT_DEFAULT_CODEPAGE)
            [[ -z $_sb_f ]] || _sb_vm_module "$_sb_k" "$_sb_root" "nls_cp$_sb_f"
            _sb_f=$(_sb_vm_config "$_sb_k" CONFIG_FAT_DEFAULT_IOCHARSET)
            [[ -z $_sb_f ]] || _sb_vm_module "$_sb_k" "$_sb_root" "nls_$_sb_f"
        fi
    done
    if ! _sb_vm_init >"$_sb_root/init" || ! chmod 755 "$_sb_root/init"; then
        sb_fail "sb_vm_initramfs: cannot write $_sb_root/init"
    fi
    cp -- "$_sb_script" "$_sb_root/test.sh" || sb_fail "sb_vm_initramfs: cannot copy $_sb_script"
    _sb_out=$_sbvm_dir/initrd.gz
    (cd "$_sb_root" && find . -print0 | LC_ALL=C sort -z |
        cpio --null --quiet -o -H newc -R 0:0 | gzip -1) >"$_sb_out" ||
        sb_fail "sb_vm_initramfs: cpio or gzip failed"
    _sb_set "$_sb_var" "$_sb_out"
}

# sb_vm_run KDIR INITRD DISK_MIB TIMEOUT_S [VAR]: boot the kernel of KDIR
# with INITRD, one CPU and 1 GiB of memory, and a new DISK_MIB MiB virtio
# disk; wait until the guest powers off. One CPU: with tcg on a machine of
# two cores, a second one took the core of qemu's I/O thread, the throttle
# in the guest dispatched late, and buffered 64k reads measured 19.2 MiB/s
# against a limit of 20 once in two runs (with one CPU, 19.98 to 20.03). Fails (with the console's end) when
# it runs longer than TIMEOUT_S seconds, or when its script did not finish
# or called fail. Sets VAR to the directory of console.log and data.log.
sb_vm_run() {
    local _sb_k=${1:-} _sb_initrd=${2:-} _sb_mib=${3:-} _sb_to=${4:-} _sb_var=${5:-}
    local _sbvm_shm _sbvm_dir _sbvm_pid _sb_t _sb_rc=0 _sb_kernel _sb_st
    [[ -d $_sb_k && -f $_sb_initrd && $_sb_mib =~ ^[1-9][0-9]*$ && $_sb_to =~ ^[1-9][0-9]*$ ]] ||
        sb_fail "usage: sb_vm_run KDIR INITRD DISK_MIB TIMEOUT_S [VAR]"
    _sb_check_var "$_sb_var"
    _sb_kernel=$(find "$_sb_k/boot" -maxdepth 1 -name 'vmlinuz-*' -print -quit)
    [[ -n $_sb_kernel ]] || sb_fail "sb_vm_run: no boot/vmlinuz-* in $_sb_k"
    sb_tmpdir_in /dev/shm _sbvm_shm
    truncate -s "${_sb_mib}M" "$_sbvm_shm/disk.img" || sb_fail "sb_vm_run: cannot create $_sbvm_shm/disk.img"
    sb_tmpdir _sbvm_dir
    sb_background _sbvm_pid qemu-system-x86_64 -accel "${SB_VM_ACCEL:-tcg}" -smp 1 -m 1024 \
        -nodefaults -display none -no-reboot \
        -kernel "$_sb_kernel" -initrd "$_sb_initrd" \
        -append 'console=ttyS0 quiet panic=-1' \
        -drive "file=$_sbvm_shm/disk.img,format=raw,if=virtio,cache=none,aio=native" \
        -serial "file:$_sbvm_dir/console.log" -serial "file:$_sbvm_dir/data.log"
    for ((_sb_t = 0; _sb_t < _sb_to * 10; _sb_t++)); do
        kill -0 "$_sbvm_pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$_sbvm_pid" 2>/dev/null; then
        kill -TERM "$_sbvm_pid" 2>/dev/null
        wait "$_sbvm_pid" 2>/dev/null || true
        sb_fail "the guest did not power off within $_sb_to s; its console ended with:
$(_sb_vm_tail "$_sbvm_dir/console.log")"
    fi
    wait "$_sbvm_pid" || _sb_rc=$?
    rm -rf -- "$_sbvm_shm/disk.img"
    [[ $_sb_rc -eq 0 ]] || sb_fail "qemu-system-x86_64 exited $_sb_rc; the console ended with:
$(_sb_vm_tail "$_sbvm_dir/console.log")"
    _sb_st=$(tr -d '\r' <"$_sbvm_dir/data.log" 2>/dev/null | sed -n 's/^==== storbench-vm exit //p' | tail -n 1)
    [[ -n $_sb_st ]] || sb_fail "the guest's script did not finish; the console ended with:
$(_sb_vm_tail "$_sbvm_dir/console.log")"
    [[ $_sb_st == 0 ]] || sb_fail "in the guest: $_sb_st; the console ended with:
$(_sb_vm_tail "$_sbvm_dir/console.log")"
    _sb_set "$_sb_var" "$_sbvm_dir"
}

# sb_vm_get RUNDIR NAME FILE: write to FILE what the guest's script sent as
# NAME (put NAME ...); fails when it sent nothing by that name.
sb_vm_get() {
    local dir=${1:-} name=${2:-} file=${3:-}
    [[ -f $dir/data.log && -n $name && -n $file ]] || sb_fail "usage: sb_vm_get RUNDIR NAME FILE"
    tr -d '\r' <"$dir/data.log" | awk -v n="$name" '
        $0 == "==== storbench-vm end " n { inside = 0; done = 1; next }
        inside { print }
        $0 == "==== storbench-vm begin " n { inside = 1 }
        END { exit !done }' >"$file" ||
        sb_fail "the guest sent no $name"
}

# --------------------------------------------------------------------------
# Internals

# _sb_vm_kernel_pkg PKGVAR VERVAR: the kernel package linux-image-amd64
# depends on now, and its version; 1 when apt-cache names none.
_sb_vm_kernel_pkg() {
    local p v
    p=$(apt-cache depends linux-image-amd64 2>/dev/null |
        awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }')
    [[ -n $p ]] || return 1
    v=$(apt-cache policy "$p" 2>/dev/null | awk '$1 == "Candidate:" { print $2; exit }')
    [[ -n $v && $v != "(none)" ]] || return 1
    printf -v "$1" '%s' "$p"
    printf -v "$2" '%s' "${v//:/%3a}"
}

# _sb_vm_prune KEEP: remove the cached kernels other than KEEP.
_sb_vm_prune() {
    local d
    for d in "$SB_VM_CACHE"/linux-image-*; do
        [[ -d $d && ${d##*/} != "$1" ]] && rm -rf -- "$d"
    done
    return 0
}

# _sb_vm_config KDIR NAME: the value of NAME in the kernel's config, quotes
# removed; empty when it is not set.
_sb_vm_config() {
    local f
    f=$(find "$1/boot" -maxdepth 1 -name 'config-*' -print -quit)
    [[ -n $f ]] || sb_fail "no boot/config-* in $1"
    sed -n "s/^$2=\"\{0,1\}\([^\"]*\)\"\{0,1\}\$/\1/p" "$f" | sed -n 1p
}

# _sb_vm_copy_bin ROOT SRC DEST: copy the program SRC to ROOT/DEST and each
# shared library and loader it needs to the same path under ROOT.
_sb_vm_copy_bin() {
    local root=$1 src=$2 dest=$3 w
    [[ -n $src && -x $src ]] || sb_fail "sb_vm_initramfs: no program '$src'"
    install -D -m 755 -- "$(readlink -f -- "$src")" "$root$dest" ||
        sb_fail "sb_vm_initramfs: cannot copy $src"
    # ldd prints "name => /path (addr)", "/path (addr)", or for a static
    # program "not a dynamic executable" (exit 1).
    for w in $(ldd -- "$src" 2>/dev/null || true); do
        [[ $w == /* ]] || continue
        [[ -e $root$w ]] && continue
        if ! mkdir -p -- "$root${w%/*}" || ! cp -L -- "$w" "$root$w"; then
            sb_fail "sb_vm_initramfs: cannot copy $w (needed by $src)"
        fi
    done
}

# _sb_vm_module KDIR ROOT NAME: put module NAME and those it depends on in
# ROOT/modules, decompressed, and append them to ROOT/modules/order unless
# listed there already. A module built into the kernel needs nothing.
_sb_vm_module() {
    local k=$1 root=$2 name=${3//-/_} mdir line file deps d base
    mdir=$(find "$k/lib/modules" -mindepth 1 -maxdepth 1 -type d -print -quit)
    [[ -f $mdir/modules.dep ]] || sb_fail "no modules.dep in $k/lib/modules"
    line=$(awk -v n="$name" -F: '{ b = $1; sub(/.*\//, "", b); sub(/\.ko.*/, "", b); gsub(/-/, "_", b)
        if (b == n) { print; exit } }' "$mdir/modules.dep")
    if [[ -z $line ]]; then
        awk -v n="$name" '{ b = $0; sub(/.*\//, "", b); sub(/\.ko.*/, "", b); gsub(/-/, "_", b)
            if (b == n) f = 1 } END { exit !f }' "$mdir/modules.builtin" 2>/dev/null && return 0
        sb_fail "the guest kernel $(basename -- "$mdir") has no module $name"
    fi
    file=${line%%:*}
    deps=${line#*:}
    # modules.dep lists a module's dependencies, direct and indirect, each
    # one after those it needs itself removed: load them from the last.
    local rev=()
    for d in $deps; do rev=("$d" "${rev[@]}"); done
    for d in "${rev[@]}"; do
        base=${d##*/}
        _sb_vm_module "$k" "$root" "${base%%.ko*}"
    done
    base=${file##*/}
    base=${base%%.ko*}.ko
    grep -Fxq -- "$base" "$root/modules/order" && return 0
    case $file in
        *.ko) cp -- "$mdir/$file" "$root/modules/$base" ;;
        *.ko.xz) xz -dc -- "$mdir/$file" >"$root/modules/$base" ;;
        *.ko.zst) zstd -qdc -- "$mdir/$file" >"$root/modules/$base" ;;
        *.ko.gz) gzip -dc -- "$mdir/$file" >"$root/modules/$base" ;;
        *) false ;;
    esac || sb_fail "cannot copy or decompress $mdir/$file"
    printf '%s\n' "$base" >>"$root/modules/order"
}

# _sb_vm_tail FILE: the last lines of a console log, carriage returns removed.
_sb_vm_tail() {
    tr -d '\r' <"$1" 2>/dev/null | tail -n 30
}

# _sb_vm_init: print the guest's /init (busybox sh).
_sb_vm_init() {
    cat <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/sbin HOME=/tmp
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
exec 3>/dev/ttyS1
say() { echo "$*" >&3; }
put() {
    say "==== storbench-vm begin $1"
    cat "$2" >&3
    say "==== storbench-vm end $1"
}
fail() {
    echo "guest: FAIL: $*"
    say "==== storbench-vm exit $*"
    sync
    poweroff -f
}
blkio_limit() {
    _mm=$(cat "/sys/class/block/${1##*/}/dev") || fail "no MAJ:MIN for $1"
    _f=/sys/fs/cgroup/blkio/blkio.throttle.$2_device
    echo "$_mm $3" >"$_f" || fail "cannot write '$_mm $3' to $_f"
    grep -qx "$_mm $3" "$_f" || fail "$_f does not show '$_mm $3' after writing it"
}
while read -r m; do
    insmod "/modules/$m" || fail "insmod $m"
done </modules/order
mount -t tmpfs cgroup /sys/fs/cgroup &&
    mkdir /sys/fs/cgroup/blkio &&
    mount -t cgroup -o blkio blkio /sys/fs/cgroup/blkio ||
    fail "cannot mount the cgroup v1 blkio hierarchy"
i=0
while [ ! -b /dev/vda ]; do
    i=$((i + 1))
    [ $i -le 100 ] || fail "no /dev/vda after 10 s"
    sleep 0.1 2>/dev/null || sleep 1
done
(. /test.sh)
rc=$?
[ $rc -eq 0 ] || fail "the test's script exited $rc"
say "==== storbench-vm exit 0"
sync
poweroff -f
EOF
}
