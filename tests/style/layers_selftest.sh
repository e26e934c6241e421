#!/usr/bin/env bash
# layers_selftest.sh: proves that scripts/check-layers can fail.
#
#   tests/style/layers_selftest.sh CHECKER
#
# Copies CHECKER into a fake source tree in a temporary directory with seven
# bad lines (and lines that only look bad), runs it there and checks that it
# exits 1 and reports exactly the seven bad lines by FILE:LINE; then removes
# the bad lines and checks that it exits 0. A checker that always exits 0
# fails here. Registered as the meson test 'layers-selftest' in suite 'style'.
set -uo pipefail

checker=${1:?usage: layers_selftest.sh CHECKER}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/scripts" "$tmp/lib/common" "$tmp/lib/report" "$tmp/lib/runner" "$tmp/lib/store" \
    "$tmp/src"
cp "$checker" "$tmp/scripts/check-layers"

# Clean: runner may use engine and <pthread.h>; the bad includes are in comments.
cat >"$tmp/lib/runner/clean.c" <<'EOF'
#  include   "engine/engine.h"
#include <pthread.h>
// #include "report/report_int.h"
/* runner may not use report:
#include "report/report_int.h"
 */
EOF
printf '/* common uses nothing */\n# include "engine/engine.h"\n' >"$tmp/lib/common/x.c"
printf '#include "storbench/status.h"\n#include "storbench/sweep.h"\n' >"$tmp/lib/report/y.c"
printf '/* the program header */\n' >"$tmp/src/cli.h"
printf '#include "cli.h"\n#include "storbench/job.h"\n#include "target/target.h"\n' >"$tmp/src/z.c"
printf '#include <sqlite3.h>\n#include <liburing.h>\n' >"$tmp/lib/store/s.c"
# Status functions: a header declaration and a file-local function without
# SB_MUST_CHECK are bad; with it, an error builder, or a function with a
# header of its own (not static) are fine.
cat >"$tmp/lib/store/t.h" <<'EOF'
SB_MUST_CHECK sb_status sb_store_good(sb_error *err);
sb_status sb_store_bad(sb_error *err);
sb_status sb_store_fail(sb_error *err, const char *why);
EOF
cat >"$tmp/lib/store/t.c" <<'EOF'
static SB_MUST_CHECK sb_status checked(void) { return SB_OK; }
static sb_status helper(void) { return SB_OK; }
sb_status sb_store_good(sb_error *err) { return checked(); }
/* static sb_status in_a_comment(void) */
EOF
cat >"$tmp/lib/runner/w.c" <<'EOF'
#include <unistd.h>
void w(int fd, const char *b, unsigned n, struct x *x)
{
    const char *s = "read(";
    pwrite(fd, b, n, 0);
    sb_pwrite(x);
    /* write( */
    x->read(fd);
    (void)s;
}
EOF

fail=0
check() { # what, condition
    if eval "$2"; then
        echo "ok: $1"
    else
        echo "FAIL: $1"
        fail=1
    fi
}

out=$("$tmp/scripts/check-layers" "$tmp")
status=$?
echo "== check-layers on the bad tree (exit $status):"
# (its warnings about the real tree's exceptions, absent here, left out)
grep -v 'matches nothing' <<<"$out"
echo "=="
check "exit status 1 on the bad tree" '[ "$status" -eq 1 ]'
expect=(
    'lib/common/x.c:2: .*"engine/engine.h"'
    'lib/report/y.c:2: .*"storbench/sweep.h"'
    'src/z.c:3: .*"target/target.h"'
    'lib/runner/w.c:5: .*pwrite()'
    'lib/store/s.c:2: .*<liburing.h>'
    'lib/store/t.h:2: sb_store_bad.. returns sb_status without SB_MUST_CHECK'
    'lib/store/t.c:2: helper.. returns sb_status without SB_MUST_CHECK'
)
for e in "${expect[@]}"; do
    check "reported: $e" 'grep -q -- "^$e" <<<"$out"'
done
violations=$(grep -cE '^[^ ]+:[0-9]+: ' <<<"$out")
check "exactly 7 violations reported (got $violations)" '[ "$violations" -eq 7 ]'
check "the clean file, sb_pwrite, a comment, a string, x->read not reported" \
    '! grep -qE "^(lib/runner/clean.c|src/cli.h|lib/runner/w.c:[^5])" <<<"$out"'

# The same tree without the seven bad lines.
rm "$tmp/lib/common/x.c" "$tmp/lib/report/y.c"
sed -i '3d' "$tmp/src/z.c"
sed -i '2d' "$tmp/lib/store/s.c"
sed -i '5d' "$tmp/lib/runner/w.c"
sed -i '2d' "$tmp/lib/store/t.h"
sed -i '2d' "$tmp/lib/store/t.c"
out=$("$tmp/scripts/check-layers" "$tmp")
status=$?
echo "== check-layers on the clean tree (exit $status):"
grep -v 'matches nothing' <<<"$out"
echo "=="
check "exit status 0 on the clean tree" '[ "$status" -eq 0 ]'
check "summary says all allowed" 'grep -q "all allowed" <<<"$out"'

exit $fail
