#!/usr/bin/env bash
#
# info.sh: `storbench info` on this machine and on a fake tree.
#  * `info /` and `info --format json /` work on the real root filesystem:
#    the text has its four groups, the JSON parses and names the same
#    filesystem type as /proc/self/mountinfo;
#  * the kernel's architecture (uname -m) and the program's own, which the
#    ELF header of $STORBENCH says (a cross build run under qemu-user: armhf
#    and 32-bit on an x86_64 kernel), in the text, the JSON and the host of
#    a run saved in the archive;
#  * `info --root tests/data/probe/pi /` prints exactly the golden file the
#    unit test renders (tests/data/golden/info_pi.txt), so the program adds
#    nothing and loses nothing on the way;
#  * bad input: a missing path, a character device, two targets, --format
#    csv; each is one line on stderr and a non-zero exit, nothing on stdout;
#  * a loop device (root and losetup needed, otherwise that part is skipped
#    with a note): its size, backing file and "virtual" bus.
set -u
. "$(dirname -- "${BASH_SOURCE[0]}")/common.sh"
sb_require_python

sb_tmpdir T
src=${SB_SOURCE_ROOT:-$(dirname -- "${BASH_SOURCE[0]}")/../..}
failed=0
bad() {
    echo "not ok - $*"
    failed=$((failed + 1))
}

# The filesystem type of / as the kernel lists it (the last mount of / wins).
root_fs=$(awk '$5 == "/" { for (i = 7; $i != "-"; i++) ; fs = $(i + 1) } END { print fs }' \
    /proc/self/mountinfo)
sb_note "root filesystem: ${root_fs:-unknown}"

sb_run "$T/text" info /
[[ $SB_RC -eq 0 ]] || bad "info /: exit status $SB_RC"
for g in Host Target Device Bus; do
    grep -q "^$g\$" "$T/text.stdout" || bad "info /: no '$g' group"
done
if [[ -n $root_fs ]]; then
    grep -qE "^  filesystem +$root_fs\$" "$T/text.stdout" || bad "info /: filesystem is not $root_fs"
fi

sb_run "$T/json" info --format json /
[[ $SB_RC -eq 0 ]] || bad "info --format json /: exit status $SB_RC"
python3 - "$T/json.stdout" "$root_fs" <<'PY' || bad "info --format json /: see the assertion above"
import json, sys
d = json.load(open(sys.argv[1]))
want = sys.argv[2]
assert set(d) >= {"host", "target", "device", "bus"}, sorted(d)
assert d["target"]["path"] == "/", d["target"]
assert d["target"]["fs_type"], "no filesystem type"
assert not want or d["target"]["fs_type"] == want, (d["target"]["fs_type"], want)
assert isinstance(d["host"]["cpus"], int), d["host"]["cpus"]
PY

# Two architectures: the kernel's and the program's.
read -r prog_arch prog_bits <<<"$(sb_elf_arch "$STORBENCH")"
# The full probe reads /proc/sys/kernel/arch where the kernel has it (6.1
# and later), else uname: either way the kernel's, not the program's.
kernel_arch=$(cat /proc/sys/kernel/arch 2>/dev/null || uname -m)
sb_note "kernel: $kernel_arch; program: $prog_arch, $prog_bits-bit"
[[ $prog_arch != unknown ]] || bad "the ELF header of $STORBENCH names no known architecture"
grep -qE "^  kernel architecture +$kernel_arch\$" "$T/text.stdout" ||
    bad "info /: the kernel architecture is not $kernel_arch"
grep -qE "^  program architecture +$prog_arch\$" "$T/text.stdout" ||
    bad "info /: the program architecture is not $prog_arch"
grep -qE "^  program word size +$prog_bits-bit\$" "$T/text.stdout" ||
    bad "info /: the program word size is not $prog_bits-bit"
python3 - "$T/json.stdout" "$prog_arch" "$prog_bits" "$kernel_arch" <<'PY' ||
import json, sys
h = json.load(open(sys.argv[1]))["host"]
arch, bits, kernel = sys.argv[2], int(sys.argv[3]), sys.argv[4]
assert h["program_arch"] == arch, (h["program_arch"], arch)
assert h["program_bits"] == bits, (h["program_bits"], bits)
assert h["machine"] == kernel, (h["machine"], kernel)
PY
    bad "info --format json /: the architectures, see the assertion above"
# A run saved in the archive carries both in its host.
mkdir "$T/work"
sb_run "$T/sweep" sweep --bs 4k --min-time 0.1s --max-time 0.2s --file-size 4m -q \
    --db "$T/arch.db" "$T/work"
[[ $SB_RC -eq 0 ]] || bad "sweep: exit status $SB_RC: $(cat "$T/sweep.stderr")"
sb_run "$T/saved" results show 1 -f json --db "$T/arch.db"
python3 - "$T/saved.stdout" "$prog_arch" "$prog_bits" <<'PY' || bad "the saved run's host: see above"
import json, sys
h = json.load(open(sys.argv[1]))["host"]
assert h["program_arch"] == sys.argv[2], h
assert h["program_bits"] == sys.argv[3], h
assert h["machine"], h
PY
# A fake tree is another machine: no program of ours runs there.
grep -q "program" "$src/tests/data/golden/info_pi.txt" && bad "the fake tree's golden names a program"

# The host alone, and -f as the short form.
sb_run "$T/host" info -f json
[[ $SB_RC -eq 0 ]] || bad "info -f json: exit status $SB_RC"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "target" not in d and d["host"]' \
    "$T/host.stdout" || bad "info -f json: not the host alone"

# A fake tree renders as the unit test's golden file.
sb_run "$T/pi" info --root "$src/tests/data/probe/pi" /
[[ $SB_RC -eq 0 ]] || bad "info --root pi /: exit status $SB_RC"
cmp -s "$T/pi.stdout" "$src/tests/data/golden/info_pi.txt" ||
    bad "info --root pi / differs from tests/data/golden/info_pi.txt: $(diff "$src/tests/data/golden/info_pi.txt" "$T/pi.stdout" | head -5)"

# Bad input: one line on stderr, nothing on stdout.
expect_error() {
    local name=$1 code=$2
    shift 2
    sb_run "$T/$name" "$@"
    [[ $SB_RC -eq $code ]] || bad "storbench $*: exit status $SB_RC, expected $code"
    [[ ! -s $T/$name.stdout ]] || bad "storbench $*: stdout is not empty"
    [[ $(wc -l <"$T/$name.stderr") -eq 1 ]] || bad "storbench $*: not one line on stderr"
}
expect_error missing 1 info "$T/does-not-exist"
grep -q "does-not-exist" "$T/missing.stderr" || bad "info of a missing path does not name it"
expect_error chardev 1 info /dev/null
expect_error two 2 info / /tmp
expect_error csv 2 info --format csv /
expect_error fakedev 1 info --root "$src/tests/data/probe/pi" /dev/sdz

# A loop device, when this machine can make one.
if [[ $(id -u) -ne 0 ]]; then
    sb_note "loop device part skipped: needs root to attach a loop device"
elif ! command -v losetup >/dev/null 2>&1; then
    sb_note "loop device part skipped: losetup is not installed"
elif ! truncate -s 16M "$T/img" || ! dev=$(losetup -f --show "$T/img" 2>"$T/losetup.err"); then
    sb_note "loop device part skipped: losetup failed: $(cat "$T/losetup.err" 2>/dev/null)"
else
    sb_at_exit "losetup -d '$dev'"
    sb_run "$T/loop" info --format json "$dev"
    [[ $SB_RC -eq 0 ]] || bad "info $dev: exit status $SB_RC: $(cat "$T/loop.stderr")"
    python3 - "$T/loop.stdout" "$dev" "$T/img" <<'PY' || bad "info $dev: wrong facts"
import json, sys
d = json.load(open(sys.argv[1]))
dev, img = sys.argv[2], sys.argv[3]
assert d["target"]["kind"] == "block device", d["target"]
assert d["device"]["name"] == dev.split("/")[-1], d["device"]
assert d["device"]["size_bytes"] == 16 * 1048576, d["device"]
assert d["device"]["loop_backing_file"] == img, d["device"]
assert d["bus"]["type"] == "virtual", d["bus"]
PY
    sb_note "loop device $dev: probed"
fi

if [[ $failed -ne 0 ]]; then
    for f in "$T"/*.stdout "$T"/*.stderr; do
        sb_show "$f" "$(basename -- "$f")"
    done
    sb_fail "$failed checks failed"
fi
echo "ok - info on /, in JSON, the kernel's and the program's architecture ($kernel_arch, $prog_arch $prog_bits-bit), on a fake tree, on bad input${dev:+, on loop device $dev}"
