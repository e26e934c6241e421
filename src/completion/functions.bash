# The completion of storbench's command line, for bash and (through the
# adapter of _storbench in the zsh file) for zsh. It is written once, in the
# common part of the two shells: zsh runs it under `emulate sh` (zero-based
# arrays, word splitting), and only where they differ (file names) does it
# ask which shell it is in.
#
# Every command, option, format and job option comes from the tables that
# also drive storbench's --help: the functions _storbench_table,
# _storbench_arg, _storbench_fio and _storbench_fio_arg below are generated
# from them at build time (src/completion_gen.c). What is found only when
# completing is found here: files and directories, the block devices of
# /sys/class/block, and the run ids of the archive, from
# `storbench results list --ids` (with the --db of the line being completed,
# else $STORBENCH_DB as the program itself reads it).
#
# Kinds of argument (sb_kind): "" none (a flag); free (nothing to offer);
# file; dir; target (a directory or a block device); devfile (a block device
# or a file); id (an archived run); "words W..." (one of those words).
#
# Lists of words (options, commands, values, ids) are split at blanks on
# purpose: completion_gen lets through no word with a blank or a glob
# character in it.
# shellcheck disable=SC2086

# _storbench_add WORD...: adds each WORD that begins with $sb_val to
# COMPREPLY, after $sb_pre.
_storbench_add() {
    local w
    for w in "$@"; do
        case $w in
        "$sb_val"*) COMPREPLY+=("$sb_pre$w") ;;
        esac
    done
}

# _storbench_compopt OPTION: compopt -o OPTION, in bash (zsh's adapter does
# without).
_storbench_compopt() {
    [[ -z ${BASH_VERSION-} ]] || compopt -o "$1" 2>/dev/null
}

# _storbench_paths -f|-d [nodev]: files and directories, or directories
# only, whose names begin with $sb_val; with nodev, no block device (those
# _storbench_devices offers are offered already).
_storbench_paths() {
    local p
    if [[ -n ${ZSH_VERSION-} ]]; then
        # zsh's adapter adds these as file names (compadd -f), which marks
        # directories itself.
        # shellcheck disable=SC2034 # read by zsh's adapter, _storbench
        sb_zsh_files=1
        for p in "$sb_val"*; do
            [[ -d $p || ($1 == -f && -e $p) ]] || continue
            [[ -z ${2-} || ! -b $p ]] && COMPREPLY+=("$sb_pre$p")
        done
    else
        _storbench_compopt filenames
        while IFS= read -r p; do
            [[ -z ${2-} || ! -b $p ]] && COMPREPLY+=("$sb_pre$p")
        done < <(compgen "$1" -- "$sb_val")
    fi
}

# _storbench_devices: the block devices (disks and partitions) that exist
# in /dev and hold something (size > 0: not an unused loop device or an
# empty card reader).
_storbench_devices() {
    local f d n
    for f in /sys/class/block/*; do
        d=/dev/${f##*/}
        case $d in
        "$sb_val"*) ;;
        *) continue ;;
        esac
        [[ -b $d ]] || continue
        n=0
        { read -r n <"$f/size"; } 2>/dev/null
        [[ $n == 0 ]] || COMPREPLY+=("$sb_pre$d")
    done
}

# _storbench_ids: the ids of the archived runs, from storbench itself (the
# program on the line, so a build tree's answers for its own archive).
_storbench_ids() {
    local sb=${sb_w[0]} i ids db=''
    for ((i = 1; i < ${#sb_w[@]}; i++)); do
        case ${sb_w[i]} in
        --db) ((i + 1 == sb_cw)) || db=${sb_w[i + 1]-} ;;
        --db=*) db=${sb_w[i]#--db=} ;;
        esac
    done
    # A "~/" the shell has not expanded yet (it is in the line as typed).
    # shellcheck disable=SC2088
    case $sb in "~/"*) sb=$HOME/${sb#"~/"} ;; esac
    # shellcheck disable=SC2088
    case $db in "~/"*) db=$HOME/${db#"~/"} ;; esac
    if [[ -n $db ]]; then
        ids=$("$sb" results list --ids --db "$db" 2>/dev/null)
    else
        ids=$("$sb" results list --ids 2>/dev/null)
    fi
    # Ids are numbers: split at white space.
    _storbench_add $ids
}

# _storbench_values KIND: completes an argument of that kind.
_storbench_values() {
    case $1 in
    words\ *) _storbench_add ${1#words } ;;
    file) _storbench_paths -f ;;
    dir) _storbench_paths -d ;;
    target)
        _storbench_paths -d
        _storbench_devices
        ;;
    devfile)
        _storbench_devices
        _storbench_paths -f nodev
        ;;
    id) _storbench_ids ;;
    esac
}

@TABLES@

# _storbench_complete: the completion function (bash's complete -F). Reads
# COMP_WORDS and COMP_CWORD, fills COMPREPLY.
_storbench_complete() {
    COMPREPLY=()
    # The words as typed: bash splits "--rw=randread" into "--rw" "=" and
    # "randread" ('=' is in COMP_WORDBREAKS); join them back.
    local sb_w=() sb_cw=0 i j=-1 glue=0 w
    for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
        w=${COMP_WORDS[i]}
        if [[ $w == "=" && $j -ge 0 && ${sb_w[j]} == -* && ${sb_w[j]} != *=* ]]; then
            sb_w[j]=${sb_w[j]}=
            glue=1
        elif ((glue)); then
            sb_w[j]=${sb_w[j]}$w
            glue=0
        else
            j=$((j + 1))
            sb_w[j]=$w
        fi
        ((i == COMP_CWORD)) && sb_cw=$j
    done
    local cur=${sb_w[sb_cw]-} raw=${COMP_WORDS[COMP_CWORD]-}

    # The command (a path such as "results show") and whether the word
    # before the cursor is an option that takes the next word as its value.
    local sb_path='' sb_cmds sb_opts sb_operand sb_fio sb_kind skip=0 ended=0
    for ((i = 1; i < sb_cw; i++)); do
        w=${sb_w[i]}
        if ((skip)); then
            skip=0
        elif [[ $w == -- ]]; then
            ended=1
        elif [[ $w == -* && $ended == 0 ]]; then
            if [[ $w != *=* ]]; then
                _storbench_arg "$sb_path" "$w"
                [[ -z $sb_kind ]] || skip=1
            fi
        else
            _storbench_table "$sb_path"
            case " $sb_cmds " in
            *" $w "*) sb_path=${sb_path:+$sb_path }$w ;;
            esac
        fi
    done
    _storbench_table "$sb_path"

    # What is replaced: the whole word, or (bash, at "--opt=value") only
    # what follows the '='.
    local sb_val=$cur sb_pre=''
    if ((skip)); then
        _storbench_arg "$sb_path" "${sb_w[sb_cw - 1]}"
        _storbench_values "$sb_kind"
    elif [[ $cur == -*=* && $ended == 0 ]]; then
        sb_val=${cur#*=}
        [[ $raw != "$cur" ]] || sb_pre=${cur%%=*}=
        sb_kind=''
        [[ -z $sb_fio ]] || _storbench_fio_arg "${cur%%=*}"
        [[ -n $sb_kind ]] || _storbench_arg "$sb_path" "${cur%%=*}"
        _storbench_values "$sb_kind"
    elif [[ $cur == -* && $ended == 0 ]]; then
        _storbench_add $sb_opts
        if [[ -n $sb_fio && $cur == --* ]]; then
            _storbench_fio
            _storbench_add $sb_opts
        fi
        # "--name=" wants its value right after it.
        case " ${COMPREPLY[*]-} " in
        *"= "*) _storbench_compopt nospace ;;
        esac
    elif [[ -n $sb_cmds ]]; then
        _storbench_add $sb_cmds
    else
        _storbench_values "$sb_operand"
    fi
    return 0
}
