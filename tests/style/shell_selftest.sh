#!/usr/bin/env bash
# shell_selftest.sh: proves that scripts/check-shell can fail.
#
#   tests/style/shell_selftest.sh CHECKER
#
# Runs CHECKER on a fake source tree in a temporary directory: a pipefail
# script with five bad lines (and lines that only look bad) that sources
# lib.sh, which has one more; the same lines in a script without pipefail,
# which sources other.sh, which has one too. Checks that it exits 1 and
# reports exactly the six bad lines of the first two by FILE:LINE; then with
# the bad script removed, that it exits 0. Registered as the meson test
# 'shell-selftest' in suite 'style'.
set -u

checker=${1:?usage: shell_selftest.sh CHECKER}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tests" "$tmp/scripts"

body='out=$(storbench results show 1 | head -n 1)
storbench --version | grep -q mpi && echo mpi
if find / -name x | grep -Fxq /x; then :; fi
n=$(ls | grep -m 1 x)
ls | grep -l x
# a comment: storbench | grep -q x
grep -q x file || echo none
grep -c x <<<"$(ls)"
ls | sed -n 1p
ls | grep -v x | sort'
printf '#!/usr/bin/env bash\nset -euo pipefail\n%s\n. "$(dirname "$0")/lib.sh"\n' "$body" >"$tmp/tests/bad.sh"
printf '#!/usr/bin/env bash\nset -u\n%s\nsource ./other.sh\n' "$body" >"$tmp/tests/nopipefail.sh"
printf '# sourced\nf() { ls | head -n 2; }\n' >"$tmp/tests/lib.sh"
printf '# sourced\nf() { ls | head -n 2; }\n' >"$tmp/tests/other.sh"
printf '#!/bin/sh\nset -e -o pipefail\necho fine | grep -c x\n' >"$tmp/scripts/tool"

failed=0
out=$("$checker" "$tmp")
rc=$?
want=$(printf 'tests/bad.sh:%s\n' 3 4 5 6 7; echo tests/lib.sh:2)
got=$(grep -oE '^tests/[a-z]+\.sh:[0-9]+' <<<"$out")
if [[ $rc -ne 1 || $got != "$want" ]]; then
    echo "not ok - bad tree: exit $rc, found:"
    printf '%s\n' "$out"
    failed=1
else
    echo "ok - bad tree: exit 1, the six bad lines and no other"
fi

rm "$tmp/tests/bad.sh"
out=$("$checker" "$tmp")
rc=$?
if [[ $rc -ne 0 ]]; then
    echo "not ok - clean tree: exit $rc: $out"
    failed=1
else
    echo "ok - clean tree: $out"
fi
exit $failed
