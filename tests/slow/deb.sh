#!/usr/bin/env bash
# deb.sh: storbench's Debian packages, as `make deb DEB_ARCH=all` builds them
# for amd64, arm64 and armhf (natively for this machine's architecture, cross
# for the others).
#
#   deb.sh build   (the test 'deb') runs make deb DEB_ARCH=all, which must
#                  succeed with lintian clean; runs lintian again on each
#                  .changes; checks each package's fields (Architecture,
#                  Version from debian/changelog, Depends computed by
#                  dpkg-shlibdeps: libc6, libjansson4, libsqlite3-0, libaio1,
#                  liburing2; and libarchive, which storbench opens at run
#                  time, from debian/control); lists its files, which must hold everything
#                  `meson install` installed in that build (the program, the
#                  man page, the shell completions once meson installs them);
#                  checks that its /usr/bin/storbench is an ELF program of that
#                  architecture; runs this machine's own program; and checks
#                  that the work tree holds nothing new but build-deb/.
#   deb.sh qemu    (the test 'deb_qemu', after 'deb') runs the programs of the
#                  other architectures' packages (--version, --help) through
#                  binfmt_misc and qemu-user; skips with the reason where this
#                  machine cannot run them or build-deb/ holds packages of
#                  another revision.
#
# Both need a git checkout (make deb packages the files git lists). 'deb'
# installs missing packaging tools through scripts/install-deps deb, so it
# needs root where any is missing. 'deb' takes 100 s on 2 idle x86-64 cores
# (make deb DEB_ARCH=all 80 s: three builds and three lintian runs; then
# lintian again), 230 s when they are shared with other builds.
set -euo pipefail
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

mode=${1:-}
[[ $mode == build || $mode == qemu ]] || sb_fail "usage: deb.sh build|qemu"

top=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd -P)
archs=(amd64 arm64 armhf)
# A board builds its own package only: the cross builds are an x86-64
# machine's (as make test's test-arm64 and test-armhf stages).
[[ $(uname -m) == x86_64 ]] || archs=("$(dpkg --print-architecture)")

sb_require_cmd git dpkg dpkg-deb readelf
git -C "$top" rev-parse --git-dir >/dev/null 2>&1 ||
    sb_skip "$top is not a git checkout (make deb packages the files git lists)"
native=$(dpkg --print-architecture)
version=$(sed -n "s/^ *version *: *'\([^']*\)'.*/\1/p" "$top/meson.build")
[[ -n $version ]] || sb_fail "cannot read the version from $top/meson.build"
sb_tmpdir work

# elf_ok ARCH FILE: FILE is an ELF executable of the Debian architecture ARCH.
elf_ok() {
    local arch=$1 file=$2 hdr class machine
    hdr=$(readelf -h -- "$file" 2>&1) || sb_fail "$arch: readelf -h $file: $hdr"
    class=$(awk -F: '$1 ~ /^ *Class$/ { gsub(/ /, "", $2); print $2 }' <<<"$hdr")
    machine=$(awk -F: '$1 ~ /^ *Machine$/ { sub(/^ +/, "", $2); print $2 }' <<<"$hdr")
    echo "$arch: ${file#"$work"/}: $class, $machine"
    case $arch in
        amd64) [[ $class == ELF64 && $machine == "Advanced Micro Devices X86-64" ]] ;;
        arm64) [[ $class == ELF64 && $machine == AArch64 ]] ;;
        armhf) [[ $class == ELF32 && $machine == ARM ]] && grep -q 'hard-float ABI' <<<"$hdr" ;;
        *) sb_fail "no ELF expectation for $arch" ;;
    esac || sb_fail "$arch: $file is not an ELF program for $arch ($class, $machine)"
}

# run_ok ARCH DIR: DIR/usr/bin/storbench answers --version and --help. A
# --version that names a revision must name the one make deb wrote into the
# copy it built (build-deb/ARCH/src/.revision).
run_ok() {
    local arch=$1 bin=$2/usr/bin/storbench out rc=0 rev
    out=$("$bin" --version 2>&1) || rc=$?
    echo "$arch: storbench --version: exit $rc: ${out//$'\n'/ | }"
    [[ $rc -eq 0 && $out == "storbench $version"* ]] ||
        sb_fail "$arch: storbench --version: exit $rc, '$out' (wanted 'storbench $version...')"
    if grep -qi revision <<<"$out"; then
        rev=$(cat "$top/build-deb/$arch/src/.revision")
        grep -qF -- "$rev" <<<"$out" ||
            sb_fail "$arch: storbench --version does not name the revision $rev of its build"
    fi
    rc=0
    out=$("$bin" --help 2>&1) || rc=$?
    echo "$arch: storbench --help: exit $rc: $(head -n 1 <<<"$out")"
    [[ $rc -eq 0 && $out == "usage: storbench "* ]] ||
        sb_fail "$arch: storbench --help: exit $rc: $(head -n 3 <<<"$out")"
}

if [[ $mode == build ]]; then
    # What git sees before (untracked and ignored directories, one line each),
    # to show afterwards that the build added nothing but build-deb/.
    git -C "$top" status --porcelain --ignored | grep -v '^!! build-deb/$' | sort >"$work/before" || true

    if [[ $EUID -ne 0 ]]; then
        # make deb would have to install these; only root can.
        sb_require_cmd dpkg-buildpackage dpkg-checkbuilddeps lintian
        for a in "${archs[@]}"; do
            opt=()
            [[ $a == "$native" ]] || opt=(-a "$a")
            unmet=$(cd "$top" && dpkg-checkbuilddeps "${opt[@]}" 2>&1) ||
                sb_skip "needs root to install the build dependencies of $a (${unmet##*: })"
        done
    fi

    deb_arch=all
    [[ ${#archs[@]} -gt 1 ]] || deb_arch=${archs[0]}
    echo "make deb DEB_ARCH=$deb_arch in $top"
    start=$SECONDS
    # The outer make's (make test) job server and flags are not this one's.
    rc=0
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$top" --no-print-directory deb DEB_ARCH="$deb_arch" \
        >"$work/make.log" 2>&1 || rc=$?
    grep -v '^running with root privileges is not recommended!$' "$work/make.log" || true
    [[ $rc -eq 0 ]] || sb_fail "make deb DEB_ARCH=$deb_arch: exit $rc (the build logs are build-deb/ARCH/dpkg-buildpackage.log)"
    echo "make deb DEB_ARCH=all: $((SECONDS - start)) s"

    for a in "${archs[@]}"; do
        deb=$top/build-deb/storbench_${version}_$a.deb
        [[ -f $deb ]] || sb_fail "$a: no ${deb#"$top"/}"

        # lintian once more, on everything the build made (source, .debs,
        # .buildinfo): no error, no warning. (TMPDIR: lintian 2.116 leaves
        # its mldbm-* files there.)
        mkdir -p -- "$work/tmp"
        TMPDIR=$work/tmp lintian --fail-on error,warning \
            "$top/build-deb/$a/storbench_${version}_$a.changes" >"$work/lintian.$a" 2>&1 || {
            cat "$work/lintian.$a"
            sb_fail "$a: lintian reports errors or warnings"
        }
        echo "$a: lintian: clean"

        # The fields.
        pkg=$(dpkg-deb -f "$deb" Package)
        pkg_version=$(dpkg-deb -f "$deb" Version)
        pkg_arch=$(dpkg-deb -f "$deb" Architecture)
        depends=$(dpkg-deb -f "$deb" Depends)
        echo "$a: Package: $pkg, Version: $pkg_version, Architecture: $pkg_arch"
        echo "$a: Depends: $depends"
        [[ $pkg == storbench ]] || sb_fail "$a: Package is '$pkg'"
        [[ $pkg_arch == "$a" ]] || sb_fail "$a: Architecture is '$pkg_arch'"
        changelog_version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
        [[ $pkg_version == "$changelog_version" ]] ||
            sb_fail "$a: Version is '$pkg_version', debian/changelog says '$changelog_version'"
        [[ $depends != *"\${"* ]] || sb_fail "$a: Depends holds a substitution variable: $depends"
        for lib in libc6 libjansson4 libsqlite3-0 libaio1 liburing2; do
            [[ ", $depends," =~ ,\ $lib\ \( ]] ||
                sb_fail "$a: Depends has no versioned $lib (dpkg-shlibdeps computes it): $depends"
        done
        # Opened at run time, not linked: named in debian/control.
        [[ $depends == *"libarchive13t64 | libarchive13"* ]] ||
            sb_fail "$a: Depends does not name libarchive (opened by storbench image): $depends"

        # The files, against what meson installed in this build.
        dpkg-deb -c "$deb" >"$work/contents.$a"
        awk '{ print $6 }' "$work/contents.$a" | sed 's|^\./|/|; s|/$||' | sort >"$work/files.$a"
        echo "$a: files:"
        awk '$1 !~ /^d/ { sub(/^\./, "", $6); print "    " $6 " (" $3 " bytes)" }' "$work/contents.$a"
        objdir=$(find "$top/build-deb/$a/src" -maxdepth 1 -type d -name 'obj-*' -print -quit)
        [[ -n $objdir ]] || sb_fail "$a: no meson build directory (obj-*) in build-deb/$a/src"
        meson introspect --installed "$objdir" |
            python3 -c 'import json, sys; print("\n".join(sorted(json.load(sys.stdin).values())))' \
                >"$work/installed.$a" || sb_fail "$a: meson introspect --installed $objdir failed"
        [[ -s $work/installed.$a ]] || sb_fail "$a: meson installed nothing"
        while IFS= read -r p; do
            # dh_compress gzips manual pages.
            [[ $p == /usr/share/man/* ]] && p=$p.gz
            grep -qxF -- "$p" "$work/files.$a" || sb_fail "$a: meson installs $p, the package does not hold it"
        done <"$work/installed.$a"
        for p in /usr/bin/storbench /usr/share/man/man1/storbench.1.gz /usr/share/doc/storbench/copyright; do
            grep -qxF -- "$p" "$work/files.$a" || sb_fail "$a: the package has no $p"
        done
        for p in /usr/share/bash-completion/completions/storbench /usr/share/zsh/vendor-completions/_storbench; do
            if grep -qxF -- "$p" "$work/files.$a"; then
                echo "$a: completion: $p"
            else
                echo "$a: completion: $p: not installed by meson (yet)"
            fi
        done

        # The program: an ELF of the package's architecture; this machine's own
        # runs here.
        mkdir -p -- "$work/root.$a"
        dpkg-deb -x "$deb" "$work/root.$a"
        elf_ok "$a" "$work/root.$a/usr/bin/storbench"
        if [[ $a == "$native" ]]; then
            run_ok "$a" "$work/root.$a"
        fi
    done

    git -C "$top" status --porcelain --ignored | grep -v '^!! build-deb/$' | sort >"$work/after" || true
    if ! cmp -s "$work/before" "$work/after"; then
        diff "$work/before" "$work/after" || true
        sb_fail "make deb changed the work tree outside build-deb/ (git status above: < before, > after)"
    fi
    echo "work tree: nothing new but build-deb/"
    exit 0
fi

# qemu: the programs of the other architectures.
revision=$(git -C "$top" describe --always --dirty)
ran=()
for a in "${archs[@]}"; do
    [[ $a != "$native" ]] || continue
    deb=$top/build-deb/storbench_${version}_$a.deb
    [[ -f $deb ]] || sb_skip "no ${deb#"$top"/}: the test 'deb' (make deb DEB_ARCH=all) makes it"
    built=$(cat "$top/build-deb/$a/src/.revision" 2>/dev/null) || built=
    [[ $built == "$revision" ]] ||
        sb_skip "build-deb/ holds the $a package of revision '${built:-unknown}', not of this tree ($revision): run the test 'deb' first"
    mkdir -p -- "$work/root.$a"
    dpkg-deb -x "$deb" "$work/root.$a"
    bin=$work/root.$a/usr/bin/storbench

    # What the program needs from this machine: its architecture's dynamic
    # loader and the libraries of its Depends, and a way to run that
    # architecture (binfmt_misc with qemu-user, or the CPU itself).
    interp=$(readelf -l -- "$bin" | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
    [[ -n $interp ]] || sb_fail "$a: $bin names no program interpreter"
    [[ -e $interp ]] || sb_skip "$a: no $interp here (libc6:$a is not installed: scripts/install-deps deb)"
    # (each a list of alternatives, any of them installed, versions left out:
    # libarchive13t64|libarchive13)
    deps=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/([^)]*)//g; s/ //g')
    for d in $deps; do
        found=
        for alt in ${d//|/ }; do
            if [[ $(dpkg-query -W -f='${Status}' "$alt:$a" 2>/dev/null) == 'install ok installed' ]]; then
                found=$alt
            fi
        done
        [[ -n $found ]] ||
            sb_skip "$a: ${d//|/ or }:$a, which the $a program needs, is not installed (scripts/install-deps deb)"
    done
    if ! "$interp" --version >/dev/null 2>&1; then
        case $a in
            amd64) qemu="qemu-x86_64" ;;
            arm64) qemu="qemu-aarch64" ;;
            armhf) qemu="qemu-arm" ;;
        esac
        if [[ ! -e /proc/sys/fs/binfmt_misc/$qemu ]]; then
            sb_skip "cannot run $a programs: no binfmt_misc entry $qemu (install qemu-user-static; is binfmt_misc mounted?)"
        fi
        sb_skip "cannot run $a programs: $interp --version fails although binfmt_misc has $qemu ($(head -n 1 "/proc/sys/fs/binfmt_misc/$qemu"))"
    fi
    elf_ok "$a" "$bin"
    run_ok "$a" "$work/root.$a"
    ran+=("$a")
done
echo "ran the programs of: ${ran[*]}"
