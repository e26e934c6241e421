#!/usr/bin/env bash
#
# run_default.sh: `storbench run` without a TARGET measures the current
# directory with the standard suite: the summary names ".", holds the nine
# tests (SEQ1M Q8T1 ... MIX4K Q8T1) with read and write columns, the exit
# status is 0 and nothing is left in the directory. --dry-run prints the same
# tests as a `storbench job` command line that storbench job accepts.
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"

sb_tmpdir T
mkdir "$T/here" "$T/out"
cd "$T/here" || sb_fail "cd $T/here"

sb_run "$T/out/run" run -q --time 0.2s --size 16m
out=$T/out/run.stdout
if [[ $SB_RC -ne 0 ]]; then
    sb_show "$T/out/run.stderr" stderr
    sb_fail "storbench run: exit status $SB_RC, expected 0"
fi
[[ ! -s $T/out/run.stderr ]] || sb_fail "storbench run -q wrote on stderr: $(cat "$T/out/run.stderr")"

failed=0
bad() {
    echo "not ok - $*"
    failed=$((failed + 1))
}
grep -qE '^\. \([a-z0-9/]+\), 16 MiB test file, direct I/O' "$out" ||
    bad "the summary does not name the target '.' and its 16 MiB file"
grep -qE '^test +read MiB/s +IOPS +p99 +write MiB/s +IOPS +p99$' "$out" ||
    bad "no header 'test read MiB/s IOPS p99 write MiB/s IOPS p99'"
for t in 'SEQ1M Q8T1' 'SEQ1M Q1T1' 'RND4K Q32T1' 'RND4K Q1T1' 'MIX4K Q8T1 (75% read)'; do
    line=$(grep -F -- "$t " "$out" | head -1)
    [[ -n $line ]] || {
        bad "no row '$t'"
        continue
    }
    # Six numbers after the name: MiB/s, IOPS, p99 for read and for write.
    nums=$(wc -w <<<"${line:${#t}}")
    [[ $nums -eq 6 ]] || bad "row '$t' has $nums values, expected 6: $line"
done
left=$(ls -A .)
[[ -z $left ]] || bad "the current directory is not empty afterwards: $left"

# --dry-run: a command line that storbench job parses to the same nine jobs.
sb_run "$T/out/dry" run --dry-run
[[ $SB_RC -eq 0 ]] || bad "run --dry-run: exit status $SB_RC"
cmd=$(cat "$T/out/dry.stdout")
[[ $cmd == "storbench job "* ]] || bad "run --dry-run did not print a storbench job line: $cmd"
eval "set -- ${cmd#storbench job }"
sb_run "$T/out/parse" job --parse-only "$@"
[[ $SB_RC -eq 0 ]] || bad "storbench job --parse-only of the dry run: exit status $SB_RC"
n=$(grep -c '^\[' "$T/out/parse.stdout")
[[ $n -eq 9 ]] || bad "the dry run parses to $n jobs, expected 9"

if [[ $failed -ne 0 ]]; then
    sb_show "$out" stdout
    sb_fail "$failed checks failed"
fi
echo "ok - run without TARGET measured '.' with the nine tests, left nothing behind"
