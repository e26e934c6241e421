#!/usr/bin/env bash
# jobspec_vs_fio.sh: storbench's reading of the good job-file corpus
# (tests/data/jobs/good) against fio's own, option by option.
#
# fio prints how it parsed each option with `fio --debug=parse --parse-only`:
# the section being read, then "handle_option=KEY, ptr=VALUE" and, for
# numbers, "out=N" (sizes in bytes, times in microseconds, as in storbench's
# dump). This script replays fio's [global] merging on those lines, takes
# storbench's dump of the same file (`test_jobspec --dump`), and compares
# every option fio reports for every job. Files storbench deliberately reads
# differently (lenient.fio: spaces after '=', bare booleans fio refuses) are
# left out. Skips when fio is not installed.
#
# Environment (tests/cli/meson.build): SB_SOURCE_ROOT, SB_JOBSPEC_DUMP (the
# test_jobspec executable).
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"

command -v fio >/dev/null 2>&1 || sb_skip "fio is not installed (apt-get install fio)"
[[ -x ${SB_JOBSPEC_DUMP:-} ]] || sb_fail "SB_JOBSPEC_DUMP does not name the test_jobspec executable"
sb_tmpdir T

# The variables the corpus uses; $ncpus and friends come from this machine
# for both tools.
export SB_JOB_DIR=/srv/bench SB_JOB_SIZE=512m SB_JOB_TAG=pi4
unset SB_JOB_UNSET

# A cross build's test_jobspec runs under qemu-user, whose sysinfo() hands a
# 32-bit program the RAM cut at 4 GiB (the kernel scales it with mem_unit;
# qemu copies it into 32 bits), while fio runs natively: $mb_memory is then
# given to it as fio computes it, from this machine's pages.
dump_opts=()
if sb_emulated "$SB_JOBSPEC_DUMP"; then
    mb=$(($(getconf _PHYS_PAGES) * $(getconf PAGESIZE) / 1048576))
    dump_opts=(--mb-memory "$mb")
    sb_note "test_jobspec is $(sb_elf_arch "$SB_JOBSPEC_DUMP"), run by an emulator: \$mb_memory=$mb given to it (fio's value)"
fi

# fio's debug lines -> "job<TAB>key<TAB>value", [global] merged as fio does.
fio_values() {
    awk -F'\t' '
    function flush_bs(   n, items, k, dir) {
        if (bs_ptr == "") return
        n = split(bs_ptr, items, index(bs_ptr, ",") ? "," : "-")
        for (k = 1; k <= n && k <= 3; k++)
            if (items[k] != "" && bs_ret[k] == 0) set("bs." k, bs_out[k])
        if (n == 1 && bs_ret[1] == 0) { set("bs.2", bs_out[1]); set("bs.3", bs_out[1]) }
        if (n == 2 && items[2] != "" && bs_ret[2] == 0) set("bs.3", bs_out[2])
        bs_ptr = ""; nout = 0
    }
    function set(k, v) { cur[k] = v; keys[k] = 1 }
    function end_section(   k) {
        flush_bs()
        if (sec == "") return
        if (sec == "global") { for (k in cur) glob[k] = cur[k] }
        else {
            for (k in glob) if (!(k in cur)) cur[k] = glob[k]
            for (k in cur) print sec "\t" k "\t" cur[k]
        }
        delete cur
    }
    {
        line = $0
        sub(/^parse +[0-9]+ +/, "", line)
    }
    line ~ /^Parsing section \[/ {
        end_section()
        sec = substr(line, 18); sub(/\]$/, "", sec)
        next
    }
    line ~ /^handle_option=/ {
        flush_bs()
        key = line; sub(/^handle_option=/, "", key); sub(/, ptr=.*/, "", key)
        ptr = line; sub(/^[^,]*, ptr=/, "", ptr)
        numeric = 0
        if (key == "bs") { bs_ptr = ptr; nout = 0; next }
        if (key ~ /^(rw|ioengine|filename|directory|description|kb_base)$/) {
            if (key == "rw" && ptr == "readwrite") ptr = "rw"
            set(key, ptr)
        } else if (key == "size" && ptr ~ /%$/) {
            set(key, ptr)
        } else numeric = 1
        next
    }
    line ~ /ret=[0-9]+, out=/ {
        r = line; sub(/^ *ret=/, "", r); sub(/,.*/, "", r)
        o = line; sub(/.*out=/, "", o); sub(/ .*/, "", o)
        if (bs_ptr != "") { nout++; bs_out[nout] = o; bs_ret[nout] = r; next }
        if (numeric && r == 0) { set(key, o); numeric = 0 }
        next
    }
    END { end_section() }
    '
}

# storbench's dump -> the same shape (units after a space dropped).
our_values() {
    awk '
    /^\[/ { job = substr($1, 2, length($1) - 2); next }
    /^  / {
        s = $0; sub(/^  /, "", s)
        k = s; sub(/=.*/, "", k)
        v = s; sub(/^[^=]*=/, "", v)
        if (k ~ /^(filename|directory|description|name)$/) { print job "\t" k "\t" v; next }
        sub(/ (bytes|us|%|writes)$/, "", v)
        if (k == "bs") {
            n = split(v, b, ",")
            for (i = 1; i <= n; i++) print job "\tbs." i "\t" b[i]
            next
        }
        print job "\t" k "\t" v
    }'
}

compared=0
failed=0
files=0
for f in "$SB_SOURCE_ROOT"/tests/data/jobs/good/*.fio; do
    base=$(basename "$f")
    [[ $base == lenient.fio ]] && continue
    files=$((files + 1))
    (cd "$T" && fio --debug=parse --parse-only "$f" >"$T/fio.out" 2>&1) || true
    if grep -qE 'failed parsing|job .* dropped|Bad option' "$T/fio.out"; then
        sb_note "$base: fio refuses it:"
        grep -E 'failed parsing|dropped|Bad option' "$T/fio.out" | head -3
        failed=$((failed + 1))
        continue
    fi
    fio_values <"$T/fio.out" | sort >"$T/fio.tsv"
    if ! "$SB_JOBSPEC_DUMP" --dump ${dump_opts[@]+"${dump_opts[@]}"} "$f" >"$T/ours.txt" 2>"$T/ours.err"; then
        sb_note "$base: storbench refuses it: $(cat "$T/ours.err")"
        failed=$((failed + 1))
        continue
    fi
    our_values <"$T/ours.txt" | sort >"$T/ours.tsv"
    while IFS=$'\t' read -r job key val; do
        compared=$((compared + 1))
        ours=$(awk -F'\t' -v j="$job" -v k="$key" '$1 == j && $2 == k { print $3 }' "$T/ours.tsv")
        if [[ $ours != "$val" ]]; then
            sb_note "$base [$job] $key: fio $val, storbench ${ours:-(missing)}"
            failed=$((failed + 1))
        fi
    done <"$T/fio.tsv"
done

sb_note "compared $compared option values of $files job files with $(fio --version)"
[[ $compared -gt 100 ]] || sb_fail "too few values compared ($compared): is fio's debug output as expected?"
[[ $failed -eq 0 ]] || sb_fail "$failed differences between storbench and fio"
echo "PASS"
