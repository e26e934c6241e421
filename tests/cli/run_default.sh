#!/usr/bin/env bash
#
# run_default.sh: `storbench run` without a TARGET measures the current
# directory: the table's header names it ".", the standard block sizes
# (4k, 64k, 1M) are measured in both directions, the exit status is 0 and
# nothing is left in the directory.
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"

sb_tmpdir T
mkdir "$T/here" "$T/out"
cd "$T/here" || sb_fail "cd $T/here"

sb_run "$T/out/run" run -q --min-time 0.1s --max-time 0.3s --file-size 4m
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
for title in 'Write throughput' 'Read throughput' 'CPU %'; do
    # The header: "block  FS" then "size  ." right below the title.
    hdr=$(awk -v t="$title" 'index($0, t) == 1 { getline b; getline s; print b; print s; exit }' "$out")
    [[ -n $hdr ]] || {
        bad "no table titled '$title'"
        continue
    }
    [[ $(sed -n 2p <<<"$hdr" | awk '{ print $1 "|" $2 "|" NF }') == 'size|.|2' ]] ||
        bad "'$title': the header does not name the target '.': $(sed -n 2p <<<"$hdr")"
done
for title in 'Write throughput' 'Read throughput'; do
    rows=$(awk -v t="$title" 'index($0, t) == 1 { getline; getline; f = 1; next }
                               f && NF == 0 { exit } f && $1 ~ /^[0-9]/ { print $1 }' "$out" |
        tr '\n' ' ')
    [[ $rows == '4k 64k 1M ' ]] || bad "'$title': block sizes '$rows', expected '4k 64k 1M '"
done
grep -q '^reads on \.: ' "$out" || bad "no 'reads on .:' line"

left=$(ls -A .)
[[ -z $left ]] || bad "the current directory is not empty afterwards: $left"

if [[ $failed -ne 0 ]]; then
    sb_show "$out" stdout
    sb_fail "$failed checks failed"
fi
echo "ok - run without TARGET measured '.', left nothing behind"
