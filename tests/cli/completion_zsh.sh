#!/usr/bin/env bash
#
# completion_zsh.sh: the zsh completion (build/src/completion/_storbench),
# a smoke test. compinit finds it on $fpath as the completion of storbench;
# its function _storbench, called as the completion system calls it (words,
# CURRENT; compadd and compset recorded), offers the commands, a format
# after "--format=" (the value alone, after compset), fio's job options
# without a space after their '=', a run id from a temporary archive and a
# directory as a file name; then a real interactive zsh on a pseudo-terminal
# (zsh/zpty) completes two words with TAB. Skips without zsh.
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"

command -v zsh >/dev/null 2>&1 || sb_skip "zsh is not installed"
[[ -n ${SB_COMPLETION_ZSH:-} && -r $SB_COMPLETION_ZSH ]] ||
    sb_fail "SB_COMPLETION_ZSH='${SB_COMPLETION_ZSH:-}' is not the generated completion"
sb_tmpdir T
mkdir -p "$T/fpath" "$T/work/adir" && cp -- "$SB_COMPLETION_ZSH" "$T/fpath/_storbench" ||
    sb_fail "cannot set up $T"
head -n 1 "$T/fpath/_storbench" | grep -qx '#compdef storbench' ||
    sb_fail "the first line of $SB_COMPLETION_ZSH is not '#compdef storbench'"

sb_run "$T/import" results import "$SB_SOURCE_ROOT/tests/data/import/good/bonnie-1.96.csv"
[[ $SB_RC -eq 0 ]] || sb_fail "results import: exit $SB_RC: $(cat "$T/import.stderr")"

# The completion system's calls, in a zsh without the user's files. Each
# case prints "CASE: how:words", sorted; how is "f" for file names (compadd
# -f), "n" for words without a space after (compadd -S ''), "w" otherwise.
cat >"$T/calls.zsh" <<'EOF'
fpath=("$1" $fpath)
shift
autoload -U compinit && compinit -u -D -d "${TMPDIR:-/tmp}/sb-zcompdump.$$" || exit 1
rm -f "${TMPDIR:-/tmp}/sb-zcompdump.$$"
print -r -- "registered: ${_comps[storbench]-none}"
typeset -ga got
compadd() {
    local how=w
    while (( $# )); do
        case $1 in
        -f) how=f ;;
        -S) [[ $2 == '' ]] && how=n; shift ;;
        -a)
            local -a these=("${(@P)2}")
            got+=("${(@)these/#/$how:}")
            shift
            ;;
        esac
        shift
    done
}
compset() { return 0 }
for line in "$@"; do
    got=()
    words=("$STORBENCH" ${(z)line})
    [[ $line == *' ' ]] && words+=('')
    CURRENT=$#words
    _storbench
    got=("${(@o)got}")
    print -r -- "$line: ${(j: :)got}"
done
EOF
timeout 60 zsh -f "$T/calls.zsh" "$T/fpath" "r" "results s" "sweep --format=" "job --rw=rand" \
    "job --ioeng" "results show " "info $T/work/a" >"$T/calls.out" 2>"$T/calls.err" ||
    sb_fail "zsh failed ($?): $(cat "$T/calls.err")"
[[ ! -s $T/calls.err ]] || sb_fail "zsh said: $(cat "$T/calls.err")"

failed=0
bad() {
    echo "not ok - $*"
    failed=$((failed + 1))
}
want() {
    grep -qxF -- "$1" "$T/calls.out" || bad "expected the line '$1'"
}
want "registered: _storbench"
want "r: w:report w:results w:run"
want "results s: w:show"
want "sweep --format=: w:csv w:json w:text"
want "job --rw=rand: w:randread w:randrw w:randwrite"
want "job --ioeng: n:--ioengine="
want "results show : w:1"
want "info $T/work/a: f:$T/work/adir"

# A real zsh on a pseudo-terminal: TAB completes "--form" to "--format "
# and "--ioeng" to "--ioengine=" with no space after it. A key (^T) writes
# the line being edited to a file, which is compared.
cat >"$T/tty.zsh" <<'EOF'
zmodload zsh/zpty || exit 3
zpty z "env -i HOME=$2 TERM=dumb PATH=/usr/bin:/bin zsh -f -i"
zpty -w z "fpath=($1 \$fpath); autoload -U compinit; compinit -u -D -d $2/zcd; unsetopt beep"
zpty -w z "sb_dump() { print -r -- \"\$BUFFER\" >$2/buffer.tmp && mv $2/buffer.tmp $2/buffer }"
zpty -w z "zle -N sb_dump; bindkey '^T' sb_dump"
# try TYPED EXPECTED: types "storbench TYPED", TAB, ^T; the line must then
# be "storbench EXPECTED".
try() {
    local i
    rm -f $dir/buffer
    zpty -w -n z "$sb $1"$'\t\C-t'
    for ((i = 0; i < 200; i++)); do
        [[ -e $dir/buffer ]] && break
        sleep 0.1
    done
    zpty -w -n z $'\C-u'
    [[ -e $dir/buffer && $(<$dir/buffer) == "$sb $2" ]] || {
        print -r -- "'$1' + TAB: '$(<$dir/buffer)', expected '$sb $2'"
        return 1
    }
}
dir=$2 sb=$3
try "sweep --form" "sweep --format " && try "job --ioeng" "job --ioengine="
ret=$?
zpty -d z
exit $ret
EOF
if timeout 60 zsh -f "$T/tty.zsh" "$T/fpath" "$T" "$STORBENCH" >"$T/tty.out" 2>&1; then
    :
elif [[ $? -eq 3 ]]; then
    echo "skip (one check): zsh has no zsh/zpty module to drive a terminal"
else
    bad "interactive zsh: TAB did not complete as expected: $(cat "$T/tty.out")"
fi

if [[ $failed -ne 0 ]]; then
    sb_show "$T/calls.out" "what zsh completed"
    sb_fail "$failed checks failed"
fi
echo "ok - zsh completion: compinit registers it; commands, a format, job options, run ids," \
    "directories; TAB in an interactive zsh"
