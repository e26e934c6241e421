# shellcheck shell=bash
#
# tests/cli/common.sh: what the CLI tests share. Source it first:
#
#     . "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"
#     sb_tmpdir T                      # a fresh /tmp directory, removed on exit
#     sb_run "$T/out" sweep "${SB_FAST[@]}" "$T/work"   # sets SB_RC
#
# Conventions
#  * Exit codes are meson's: 0 pass, 1 fail (sb_fail), 77 skip (sb_skip).
#  * Every test makes its own directory with mktemp, so the tests can run in
#    parallel with each other; sb_cleanup removes it on EXIT, INT, TERM and
#    HUP, after running whatever the test registered with sb_at_exit (in
#    reverse order, so an unmount registered last runs before the rm -rf).
#  * The tests never need root or loop devices; a case that does skips
#    itself with a printed reason.
#  * STORBENCH_DB points into a private directory removed at the end, so
#    the runs the tests measure never land in the user's archive.
#  * Environment (set by tests/cli/meson.build): STORBENCH, the binary;
#    SB_SOURCE_ROOT, the source tree; SB_VERSION, the project's version.

if [[ -z ${BASH_VERSION:-} ]]; then
    echo "common.sh: needs bash" >&2
    exit 1
fi
set -u

# Small adaptive settings: each point runs 0.1 .. 0.3 s on a 4 MiB file.
SB_FAST=(--min-time 0.1s --max-time 0.3s --file-size 4m --bs 4k,64k -q)

# sb_skip REASON...: prints "SKIP: REASON" and exits 77.
sb_skip() {
    printf 'SKIP: %s\n' "$*"
    exit 77
}

# sb_fail MSG...: prints "FAIL: MSG" and exits 1.
sb_fail() {
    printf 'FAIL: %s\n' "$*"
    exit 1
}

# sb_note MSG...: a line of the test's log.
sb_note() {
    printf '%s\n' "$*"
}

_sb_cleanup_cmds=()
_sb_tmp_dirs=()

# sb_at_exit CMD...: runs CMD (one string, evaluated) when the test ends.
sb_at_exit() {
    _sb_cleanup_cmds+=("$1")
}

sb_cleanup() {
    local i
    for ((i = ${#_sb_cleanup_cmds[@]} - 1; i >= 0; i--)); do
        eval "${_sb_cleanup_cmds[i]}" || true
    done
    _sb_cleanup_cmds=()
    for i in "${_sb_tmp_dirs[@]}"; do
        # A read-only directory (chmod 555) must become writable again to be
        # emptied.
        chmod -R u+rwx "$i" 2>/dev/null || true
        rm -rf -- "$i"
    done
    _sb_tmp_dirs=()
}
trap sb_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# sb_tmpdir NAME: makes a fresh directory under /tmp, removed when the test
# ends, and stores its path in the variable NAME.
sb_tmpdir() {
    local d
    d=$(mktemp -d /tmp/sbcli.XXXXXX) || sb_fail "mktemp -d failed"
    _sb_tmp_dirs+=("$d")
    printf -v "$1" '%s' "$d"
}

# sb_require_bin: the binary exists and runs. A cross-built one (make
# test-arm64, test-armhf) runs through qemu-user's binfmt_misc handler; where
# that is not registered, the test skips and says so.
sb_require_bin() {
    [[ -n ${STORBENCH:-} ]] || sb_fail "STORBENCH is not set (run through meson test)"
    [[ -x $STORBENCH ]] || sb_fail "STORBENCH='$STORBENCH' is not an executable"
    local arch q
    if sb_emulated "$STORBENCH" && ! "$STORBENCH" --version >/dev/null 2>&1; then
        read -r arch _ <<<"$(sb_elf_arch "$STORBENCH")"
        [[ $arch != unknown ]] || sb_fail "'$STORBENCH' is built for another machine and does not run here"
        q=$arch
        case $arch in armhf | armel) q=arm ;; esac
        sb_skip "storbench is built for $arch and this $(uname -m) machine cannot run it: qemu-user's binfmt_misc handler is not registered (as root: scripts/qemu-binfmt $q)"
    fi
}

# sb_require_python: python3 is there (for CSV and JSON checks).
sb_require_python() {
    command -v python3 >/dev/null 2>&1 || sb_skip "python3 is not installed (needed to check CSV and JSON)"
}

# sb_run OUTPREFIX ARGS...: runs storbench with ARGS, stdout to
# OUTPREFIX.stdout, stderr to OUTPREFIX.stderr, and sets SB_RC. stdin is
# /dev/null, so nothing waits for a terminal.
SB_RC=0
sb_run() {
    local out=$1
    shift
    SB_RC=0
    "$STORBENCH" "$@" >"$out.stdout" 2>"$out.stderr" </dev/null || SB_RC=$?
}

# sb_listing DIR: every entry under DIR (recursively), with its type and
# size, one per line, sorted: two listings compare equal when nothing was
# created, removed or changed in size.
sb_listing() {
    find "$1" -mindepth 1 -printf '%P %y %s\n' 2>/dev/null | LC_ALL=C sort
}

# sb_no_test_files DIR...: fails when a storbench test file remains in DIR.
sb_no_test_files() {
    local d left
    for d in "$@"; do
        left=$(find "$d" -name 'storbench-*.tmp' 2>/dev/null)
        [[ -z $left ]] || sb_fail "test files left behind in $d: $left"
    done
}

# sb_show FILE LABEL: prints a captured output for the log.
sb_show() {
    if [[ -s $1 ]]; then
        printf -- '--- %s:\n' "$2"
        cat -- "$1"
        printf -- '---\n'
    fi
}

# sb_elf_arch FILE: the architecture an ELF executable was built for, read
# from its header, in Debian's names as `storbench info` gives them
# (x86_64, i386, aarch64, armhf, armel, ...), then a space and its word size
# (32 or 64); "unknown" for what it does not know.
sb_elf_arch() {
    local class machine flags arch
    class=$(od -An -tu1 -j4 -N1 -- "$1" 2>/dev/null | tr -d ' ')
    machine=$(od -An -tu2 -j18 -N2 --endian=little -- "$1" 2>/dev/null | tr -d ' ')
    case $machine in
    62) arch=x86_64 ;;
    3) arch=i386 ;;
    183) arch=aarch64 ;;
    40)
        # e_flags (at 36 in a 32-bit header): EF_ARM_ABI_FLOAT_HARD, 0x400.
        flags=$(od -An -tu4 -j36 -N4 --endian=little -- "$1" 2>/dev/null | tr -d ' ')
        if (((${flags:-0} & 0x400) != 0)); then arch=armhf; else arch=armel; fi
        ;;
    243) arch=riscv64 ;;
    *)
        echo unknown
        return
        ;;
    esac
    case $class in
    1) echo "$arch 32" ;;
    2) echo "$arch 64" ;;
    *) echo unknown ;;
    esac
}

# sb_emulated FILE: true when the executable FILE is built for another
# architecture than this shell, so that it runs under an emulator (qemu-user
# through binfmt_misc, for a cross build's tests).
sb_emulated() {
    [[ $(sb_elf_arch "$1") != "$(sb_elf_arch "$BASH")" ]]
}

# sb_engine_unavailable NAME: prints why I/O engine NAME cannot run here, in
# the words of its run-time probe (`storbench job --help` lists every engine
# with "available here" or that reason), and succeeds; prints nothing and
# fails when it can run. qemu-user, for one, has neither libaio nor
# io_uring.
sb_engine_unavailable() {
    local why
    why=$("$STORBENCH" job --help 2>/dev/null |
        awk -v e="$1" '$1 == e { getline; sub(/^ +/, ""); print; exit }')
    [[ -n $why && $why != "available here" ]] || return 1
    printf '%s\n' "$why"
}

sb_require_bin

# Every measuring command saves its run in the archive: the tests keep
# theirs in a private directory, never in the user's
# ~/.local/share/storbench, unless a test points --db or STORBENCH_DB
# elsewhere itself.
sb_tmpdir _sb_db_dir
export STORBENCH_DB=$_sb_db_dir/results.db
