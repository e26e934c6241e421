#!/usr/bin/env bash
# run_fuzz.sh: runs a libFuzzer target for a fixed time on a seed corpus.
#
#   fuzz/run_fuzz.sh FUZZER SECONDS DICT SEED_DIR...
#
# The seeds are copied into a fresh /tmp corpus (the source tree is never
# written), the fuzzer runs for SECONDS, and any crash, leak, timeout or
# sanitizer report fails the test; the reproducer is kept in the temporary
# directory, whose path is printed. Registered as meson test 'fuzz_jobspec'
# in suite 'fuzz' when -Dfuzz=true.
set -uo pipefail
fuzzer=$1 seconds=$2 dict=$3
shift 3
work=$(mktemp -d /tmp/storbench-fuzz.XXXXXX) || exit 1
mkdir -p "$work/corpus"
for d in "$@"; do
    find "$d" -type f -exec cp -t "$work/corpus" {} +
done
echo "fuzzing for ${seconds}s in $work ($(ls "$work/corpus" | wc -l) seeds)"
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
cd "$work" || exit 1
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -dict="$dict" -print_final_stats=1 "$work/corpus" >"$work/fuzz.log" 2>&1
rc=$?
tail -n 25 "$work/fuzz.log"
if [ $rc -ne 0 ]; then
    echo "FAIL: the fuzzer stopped with code $rc; reproducer and log in $work"
    exit 1
fi
rm -rf "$work"
echo "PASS: no findings in ${seconds}s"
