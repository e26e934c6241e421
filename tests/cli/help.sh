#!/usr/bin/env bash
#
# help.sh: --help (--version is version.sh's). Help goes to stdout with
# exit 0; the help of `sweep`, `run` and `job` lists every option of the
# option table cli_NAME_opts in src/cli_tables.c (read from the source, so
# a new option cannot be left out of the help), and lists no option the
# table does not have; `storbench` alone prints its usage on stderr and
# exits 2.
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"

sb_tmpdir T
root=${SB_SOURCE_ROOT:-$(dirname -- "${BASH_SOURCE[0]}")/../..}

# load_table CMD: the option table of CMD in src/cli_tables.c, the lines
# from `cli_CMD_opts[] = {` to the closing `};`; each entry begins
# `{ "name", 'c'` or `{ "name", 0`, CLI_OUTPUT_OPTIONS(...)
# (src/cli_tables.h) stands for -f/--format, SWEEP_OPTIONS for the lines
# of that macro,
# -o/--output, --si and -q/--quiet, and CLI_SAVE_OPTIONS(short) for --db,
# --no-save and --label with that short name.
load_table() {
    local src=$root/src/cli_tables.c body
    local output_re="CLI_OUTPUT_OPTIONS\\("
    local save_re="CLI_SAVE_OPTIONS\\(('([A-Za-z0-9])'|0)\\)"
    [[ -r $src ]] || sb_fail "cannot read $src (SB_SOURCE_ROOT='${SB_SOURCE_ROOT:-}')"
    body=$(sed -n "/ cli_$1_opts\[\] = {/,/^};/p" "$src")
    # sweep's options are a macro, which fscompare's table holds too.
    if [[ $body == *SWEEP_OPTIONS* ]]; then
        body+=$'\n'$(sed -n '/^#define SWEEP_OPTIONS/,/^$/p' "$src")
    fi
    mapfile -t table < <(
        grep -oE "\\{ *\"[a-z][a-z0-9-]*\", *('[A-Za-z0-9]'|0)" <<<"$body" |
            sed -E "s/^\\{ *\"([^\"]*)\", *'?([^']*)'?$/\\1 \\2/"
    )
    if [[ $body =~ $output_re ]]; then
        table+=("format f" "output o" "si 0" "quiet q")
    fi
    if [[ $body =~ $save_re ]]; then
        table+=("db 0" "no-save 0" "label ${BASH_REMATCH[2]:-0}")
    fi
    [[ ${#table[@]} -ge 5 ]] ||
        sb_fail "found ${#table[@]} options in $src; the table parser needs updating"
    sb_note "option table of $src: ${#table[@]} options"
}

failed=0
bad() {
    echo "not ok - $*"
    failed=$((failed + 1))
}

# expect_ok NAME ARGS...: exit 0, output on stdout, nothing on stderr.
expect_ok() {
    local name=$1
    shift
    sb_run "$T/$name" "$@"
    [[ $SB_RC -eq 0 ]] || bad "storbench $*: exit status $SB_RC, expected 0"
    [[ -s $T/$name.stdout ]] || bad "storbench $*: nothing on stdout"
    [[ ! -s $T/$name.stderr ]] || bad "storbench $*: stderr is not empty: $(cat "$T/$name.stderr")"
}

# options_listed FILE WHAT: every table option appears as --name (and -c,
# --name for those with a short name), and every --option in the help is in
# the table (or is --help).
options_listed() {
    local file=$1 what=$2 entry name short
    local -A known=([help]=1)
    for entry in "${table[@]}"; do
        name=${entry%% *}
        short=${entry#* }
        known[$name]=1
        grep -qE -- "(^|[ ,])--$name( |$)" "$file" || bad "$what: --$name is not in the help"
        if [[ $short != 0 ]]; then
            grep -qE -- "-$short, --$name( |$)" "$file" || bad "$what: '-$short, --$name' is not in the help"
        fi
    done
    grep -qE -- "-h, --help( |$)" "$file" || bad "$what: -h, --help is not in the help"
    local listed
    while read -r listed; do
        [[ -n ${known[$listed]:-} ]] || bad "$what: the help lists --$listed, which is not in the table"
    done < <(grep -oE -- "^ +(-[A-Za-z], )?--[a-z][a-z0-9-]*" "$file" | sed -E 's/.*--//')
}

# The program's own help.
expect_ok main --help
grep -q '^usage: storbench ' "$T/main.stdout" || bad "--help: no usage line"
for cmd in run sweep job image fscompare card; do
    grep -qE "^  $cmd " "$T/main.stdout" || bad "--help: the command '$cmd' is not listed"
done
expect_ok main_h -h
cmp -s "$T/main.stdout" "$T/main_h.stdout" || bad "-h and --help differ"

# The subcommands' help.
for cmd in sweep run job image fscompare card; do
    load_table "$cmd"
    expect_ok "$cmd" "$cmd" --help
    grep -q "^usage: storbench $cmd " "$T/$cmd.stdout" || bad "$cmd --help: no usage line"
    options_listed "$T/$cmd.stdout" "$cmd --help"
    expect_ok "${cmd}_h" "$cmd" -h
    cmp -s "$T/$cmd.stdout" "$T/${cmd}_h.stdout" || bad "$cmd -h and $cmd --help differ"
done
# --help wins over a bad option that follows it, and measures nothing.
expect_ok sweep_first sweep --help --bs 0 "$T"
sb_no_test_files "$T"

# --version: version.sh.

# No arguments: usage on stderr, exit 2, nothing on stdout.
sb_run "$T/none"
[[ $SB_RC -eq 2 ]] || bad "no arguments: exit status $SB_RC, expected 2"
[[ ! -s $T/none.stdout ]] || bad "no arguments: stdout is not empty"
grep -q '^usage: storbench ' "$T/none.stderr" || bad "no arguments: no usage on stderr"

if [[ $failed -ne 0 ]]; then
    for f in "$T"/*.stdout "$T"/*.stderr; do
        sb_show "$f" "$(basename -- "$f")"
    done
    sb_fail "$failed checks failed"
fi
echo "ok - help of storbench, sweep and run; usage without arguments"
