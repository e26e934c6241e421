#!/usr/bin/env bash
# fresh_root: the README's two commands on a machine that has nothing but git,
# make and sudo, as a new user meets them.
#
# A minimal Debian root of this machine's release is built with mmdebstrap
# from the Debian registry (variant minbase, plus git, make, sudo). A user
# `pi` with sudo, as on Raspberry Pi OS, clones the project (this source
# tree's committed HEAD) and runs, in the root:
#   1. make run    must install exactly the program's build packages (no
#                  cmocka, clang or fio: the test list is not used), build
#                  the program and not the tests, and print the suite's table;
#   2. make test   must install the rest and pass; no test there may skip
#                  because a tool or library is missing (tests that need
#                  root skip, as pi is not root);
#   3. make deb DEB_ARCH=all   the three Debian packages.
# Then a second fresh root installs each package with apt (amd64, arm64 and
# armhf in turn: its Depends must pull in what it needs) and runs
# `storbench --version`; the ARM ones run through qemu-user's binfmt
# handlers, which are the host kernel's.
#
# The root runs in its own mount namespace (unshare), so its /proc, /sys and
# /dev mounts vanish with its last process, even when the test is killed.
# It needs root, mmdebstrap, the registry and ~4 GB in $SB_TMP; ~25 min.
# Its logs (each step's output, the meson test logs of the root's make test)
# are kept in $SB_FRESH_LOGS (meson: the build directory's tests/slow).
set -euo pipefail
# shellcheck source=tests/slow/lib.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

sb_require_root
sb_require_cmd mmdebstrap git unshare chroot tar
src=${SB_SRC:-}
[[ -n $src && -d $src ]] || sb_fail "SB_SRC must name the source tree (meson sets it)"
git -C "$src" rev-parse --verify -q HEAD >/dev/null ||
    sb_skip "the source tree $src is not a git clone with a commit"
# shellcheck source=/dev/null
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[[ -n $suite ]] || sb_skip "/etc/os-release names no release (VERSION_CODENAME)"
getent hosts deb.debian.org >/dev/null 2>&1 ||
    sb_skip "the Debian registry (deb.debian.org) is not reachable from here"
[[ $(uname -m) == x86_64 ]] ||
    sb_skip "the fresh root installs the amd64, arm64 and armhf packages: an x86-64 machine's test"
# The ARM packages' programs run through qemu-user's binfmt_misc handlers,
# which are the host kernel's (registered here, as root, when missing).
for q in aarch64 arm; do
    "$src/scripts/qemu-binfmt" "$q" >/dev/null
    [[ $(head -n 1 "/proc/sys/fs/binfmt_misc/qemu-$q" 2>/dev/null) == enabled ]] ||
        sb_skip "cannot run $q programs here: qemu-$q is not registered in binfmt_misc (qemu-user-static, binfmt-support)"
done

sb_tmpdir work
# The logs stay where meson says (in the build directory), for a failure's
# whole story; they are replaced by the next run.
logs=${SB_FRESH_LOGS:-$work/logs}
rm -rf -- "$logs"
mkdir -p -- "$logs"
echo "   logs: $logs"

step_start=0
step() {
    step_start=$SECONDS
    printf '== %s\n' "$*"
}
step_done() {
    printf '   done in %d s\n' $((SECONDS - step_start))
}

# show_fail LOG MSG: the end of LOG, then fail with MSG.
show_fail() {
    echo "--- last lines of $1:" >&2
    tail -n 40 -- "$1" >&2 || true
    sb_fail "$2"
}

# in_root ROOT CMD...: CMD in ROOT, as root, with /proc, /sys and /dev.
in_root() {
    local root=$1
    shift
    unshare --mount --propagation private -- bash -c '
        set -e
        r=$1
        shift
        mount -t proc proc "$r/proc"
        mount --rbind /sys "$r/sys"
        mount --rbind /dev "$r/dev"
        exec chroot "$r" "$@"' in_root "$root" "$@"
}

# as_pi ROOT SHELL-COMMAND: SHELL-COMMAND in ROOT as pi, in a login shell,
# in the clone.
as_pi() {
    in_root "$1" /usr/sbin/runuser -l pi -c "cd ~/storbench && $2"
}

# new_root DIR: a fresh root from the tarball, able to reach the registry.
new_root() {
    mkdir "$1"
    tar -C "$1" -xf "$work/root.tar"
    cp /etc/resolv.conf "$1/etc/resolv.conf"
}

step "mmdebstrap: a minimal Debian $suite root with git, make and sudo"
mmdebstrap --variant=minbase --include=git,make,sudo,ca-certificates \
    "$suite" "$work/root.tar" >"$logs/mmdebstrap.log" 2>&1 ||
    show_fail "$logs/mmdebstrap.log" "mmdebstrap failed"
step_done

root=$work/root1
new_root "$root"
in_root "$root" useradd --create-home --shell /bin/bash pi
printf 'pi ALL=(ALL) NOPASSWD: ALL\n' >"$root/etc/sudoers.d/pi"
chmod 0440 "$root/etc/sudoers.d/pi"
git clone -q --no-hardlinks "$src" "$root/home/pi/storbench"
pi_ids=$(in_root "$root" id -u pi):$(in_root "$root" id -g pi)
chown -R "$pi_ids" "$root/home/pi/storbench"
echo "   the clone: $(git -C "$src" log -1 --format='%h %s')"

step "make run (as pi, with sudo)"
as_pi "$root" 'make run' >"$logs/make-run.log" 2>&1 ||
    show_fail "$logs/make-run.log" "make run failed in the fresh root"
step_done
grep -q '^SEQ1M Q8T1 ' "$logs/make-run.log" ||
    show_fail "$logs/make-run.log" "make run printed no result table"
for p in libcmocka-dev clang fio bonnie++ clang-format; do
    if [[ $(in_root "$root" dpkg-query -W -f='${Status}' "$p" 2>/dev/null) == *'ok installed'* ]]; then
        sb_fail "make run installed $p, which only the tests need"
    fi
done
[[ -x $root/home/pi/storbench/build/storbench ]] || sb_fail "make run left no build/storbench"
[[ ! -e $root/home/pi/storbench/build/tests/unit/test_units ]] ||
    sb_fail "make run built the unit tests"
grep -A8 '^test ' "$logs/make-run.log" | sed 's/^/   /'

step "make test (as pi)"
rc=0
as_pi "$root" 'make test' >"$logs/make-test.log" 2>&1 || rc=$?
for d in "$root"/home/pi/storbench/build*/meson-logs; do
    for f in "$d"/testlog*.txt; do
        [[ -f $f ]] && cp -- "$f" "$logs/$(basename -- "$(dirname -- "$d")")-${f##*/}"
    done
done
[[ $rc -eq 0 ]] || show_fail "$logs/make-test.log" "make test failed in the fresh root"
step_done
# A skip for want of a tool means the test list is short of a package.
missing=$(cat "$root"/home/pi/storbench/build*/meson-logs/testlog*.json 2>/dev/null |
    python3 -c '
import json, re, sys
want = re.compile(r"not installed|command not found|not built|not found:|no such file|"
                  r"build dependencies", re.I)
for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    e = json.loads(line)
    if str(e.get("result", "")).upper() != "SKIP":
        continue
    out = (e.get("stdout") or "") + (e.get("stderr") or "")
    for l in out.splitlines():
        if want.search(l):
            print(e.get("name", "?") + ": " + l.strip())
            break
')
[[ -z $missing ]] || sb_fail "tests in the fresh root skipped for a missing dependency: $missing"
grep -E '^(Ok|Fail|Skipped|Expected Fail|Unexpected Pass|Timeout):' "$logs/make-test.log" |
    sort | uniq -c | sed 's/^/   /' || true

debs=$root/home/pi/storbench/build-deb
if compgen -G "$debs/storbench_*_amd64.deb" >/dev/null &&
    compgen -G "$debs/storbench_*_arm64.deb" >/dev/null &&
    compgen -G "$debs/storbench_*_armhf.deb" >/dev/null; then
    echo "== make deb DEB_ARCH=all ran in make test (the slow test deb): its packages are used"
else
    step "make deb DEB_ARCH=all (as pi)"
    as_pi "$root" 'make deb DEB_ARCH=all' >"$logs/make-deb.log" 2>&1 ||
        show_fail "$logs/make-deb.log" "make deb failed in the fresh root"
    step_done
fi

step "apt install each package in a second fresh root and run storbench --version"
root2=$work/root2
new_root "$root2"
in_root "$root2" dpkg --add-architecture arm64
in_root "$root2" dpkg --add-architecture armhf
in_root "$root2" apt-get update >"$logs/apt2.log" 2>&1 ||
    show_fail "$logs/apt2.log" "apt-get update failed in the second root"
for arch in amd64 arm64 armhf; do
    deb=$(compgen -G "$debs/storbench_*_$arch.deb" | sed -n 1p || true)
    [[ -n $deb ]] || sb_fail "make deb made no $arch package in $debs"
    cp -- "$deb" "$root2/tmp/"
    in_root "$root2" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y --no-install-recommends "/tmp/${deb##*/}" >>"$logs/apt2.log" 2>&1 ||
        show_fail "$logs/apt2.log" "apt-get install ${deb##*/} failed"
    got=$(in_root "$root2" dpkg-query -W -f='${Architecture}' storbench)
    [[ $got == "$arch" ]] || sb_fail "installed storbench is $got, not $arch"
    version=$(in_root "$root2" storbench --version 2>&1) ||
        sb_fail "storbench --version ($arch package) failed: $version"
    [[ $version == storbench\ * ]] || sb_fail "storbench --version ($arch) printed: $version"
    printf '   %s: %s\n' "$arch" "${version%%$'\n'*}"
    [[ -e $root2/usr/share/man/man1/storbench.1.gz ]] ||
        sb_fail "the $arch package installed no man page"
    in_root "$root2" env DEBIAN_FRONTEND=noninteractive apt-get purge -y storbench \
        >>"$logs/apt2.log" 2>&1 || show_fail "$logs/apt2.log" "apt-get purge storbench failed"
done
step_done
echo "fresh root: make run, make test and make deb passed; the packages install and run"
