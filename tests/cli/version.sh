#!/usr/bin/env bash
#
# version.sh: storbench --version (and -V, the same): "storbench VERSION"
# with the project's version, then one "name: value" line each: the git
# revision it was built from (what `git describe --always --dirty` says of
# the source tree when it is a git checkout, else its .revision file, else
# "unknown"), the optional engines (yes or no), the SQLite and Jansson
# versions, and MPI and PostgreSQL (no, or yes with the version of MPI or
# libpq built with). storbench --help lists --version.
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"

sb_tmpdir T
root=${SB_SOURCE_ROOT:-$(dirname -- "${BASH_SOURCE[0]}")/../..}

failed=0
bad() {
    echo "not ok - $*"
    failed=$((failed + 1))
}

sb_run "$T/version" --version
[[ $SB_RC -eq 0 && ! -s $T/version.stderr ]] ||
    sb_fail "--version: exit $SB_RC, stderr '$(cat "$T/version.stderr")'"
sb_run "$T/v" -V
cmp -s "$T/version.stdout" "$T/v.stdout" || bad "-V and --version differ"

mapfile -t lines <"$T/version.stdout"
first=${lines[0]-}
if [[ -n ${SB_VERSION:-} ]]; then
    [[ $first == "storbench $SB_VERSION" ]] || bad "first line '$first', expected 'storbench $SB_VERSION'"
else
    [[ $first =~ ^storbench\ [0-9]+\.[0-9]+ ]] || bad "first line '$first'"
fi
# value NAME: the value of the line "NAME: value" (exactly one such line).
value() {
    local n
    n=$(grep -c "^$1: " "$T/version.stdout")
    [[ $n -eq 1 ]] || bad "$n lines '$1: ...', expected one"
    sed -n "s/^$1: //p" "$T/version.stdout"
}
names=$(sed -n '2,$s/: .*//p' "$T/version.stdout" | tr '\n' ' ')
[[ $names == "revision io_uring libaio sqlite3 jansson mpi postgresql " ]] ||
    bad "the lines after the first are '$names'"
[[ $(wc -l <"$T/version.stdout") -eq 8 ]] || bad "--version printed $(wc -l <"$T/version.stdout") lines, expected 8"

# The revision, as the build was told to find it.
revision=$(value revision)
if [[ -e $root/.git ]] && command -v git >/dev/null 2>&1; then
    want=$(git -C "$root" describe --always --dirty 2>/dev/null) || want=
    if [[ -n $want ]]; then
        [[ $revision == "$want" ]] || bad "revision '$revision', but git describe says '$want'"
    else
        sb_note "git describe fails here; revision '$revision' is the fallback"
    fi
elif [[ -f $root/.revision ]]; then
    want=$(tr -d '\n' <"$root/.revision")
    [[ $revision == "$want" ]] || bad "revision '$revision', but .revision says '$want'"
else
    [[ $revision == unknown ]] || bad "revision '$revision' without .git or .revision, expected 'unknown'"
fi
for name in io_uring libaio; do
    v=$(value $name)
    [[ $v == yes || $v == no ]] || bad "$name: '$v', expected yes or no"
done
for name in sqlite3 jansson; do
    v=$(value $name)
    [[ $v =~ ^[0-9]+(\.[0-9]+)+ ]] || bad "$name: '$v' is not a version"
done
v=$(value mpi)
[[ $v == no || $v =~ ^yes\ \([0-9]+(\.[0-9]+)+\)$ ]] || bad "mpi: '$v', expected no or yes (VERSION)"
v=$(value postgresql)
[[ $v == no || $v =~ ^yes\ \([0-9]+(\.[0-9]+)+\)$ ]] || bad "postgresql: '$v', expected no or yes (VERSION)"

# --help lists it.
sb_run "$T/help" --help
grep -qE -- '^  -V, --version +the version' "$T/help.stdout" || bad "--help does not list -V, --version"

if [[ $failed -ne 0 ]]; then
    sb_show "$T/version.stdout" "storbench --version"
    sb_fail "$failed checks failed"
fi
echo "ok - --version: $first, revision $revision, $(sed -n '3,$p' "$T/version.stdout" | tr '\n' ' ')"
