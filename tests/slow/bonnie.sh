#!/usr/bin/env bash
# bonnie.sh: storbench bonnie against a device whose true speed we set.
#
# ext4 on a direct-I/O loop device throttled to 16 MiB/s of writes, 16 MiB/s
# of reads and 400 reads per second. `storbench bonnie -s 256:8k:2000` must
# measure block output and block input within +-3% of 16 MiB/s and the seeks
# within +-10% of 400/s. The file is 256 MiB on a machine with 24 GiB of
# RAM, where bonnie++ would want 48 GiB: a read or a seek served from the
# page cache would show GiB/s or tens of thousands of seeks, so meeting the
# limits proves that the writes end on the device (fsync inside the time),
# that the reads start cold (the file's cache dropped) and that the seeks
# read the device (O_DIRECT). The sequential reads ask for about 128
# requests of 128 KiB per second (readahead), below the IOPS limit, so that
# limit only holds the seeks back. The file tests (-n 1:4096:1024:4) must
# create, find and delete 1024 files; nothing of storbench's may be left.
set -euo pipefail
. "$(dirname -- "${BASH_SOURCE[0]}")/lib.sh"

sb_require_root
sb_require_bin
sb_require_loop
sb_require_blkio

mib=16
iops=400
sb_loop_create 512 dev
sb_mkfs "$dev" ext4
sb_mount "$dev" mnt
sb_throttle "$dev" wbps=${mib}M rbps=${mib}M riops=$iops
ram_mib=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 }' /proc/meminfo)
echo "RAM $ram_mib MiB, file 256 MiB; limits: $mib MiB/s write and read, $iops reads/s"

sb_tmpdir out
"$SB_BIN" bonnie -q -f -s 256:8k:2000:5 -n 1:4096:1024:4 -m slowtest "$mnt" \
    >"$out/csv" 2>"$out/text" || sb_fail "storbench bonnie failed: $(cat "$out/text")"
cat "$out/text" "$out/csv"
line=$(grep '^1\.98,' "$out/csv") || sb_fail "no CSV line"
IFS=, read -r -a f <<<"$line"
[[ ${#f[@]} -eq 50 ]] || sb_fail "the CSV line has ${#f[@]} fields, not 50"

bad=0
# Fields (0-based): 11 put_block, 17 get_block (K/sec), 19 seeks (/s).
printf 'block output: '
sb_within "$(awk -v k="${f[11]}" 'BEGIN { printf "%.3f", k / 1024 }')" $mib 3 || bad=1
printf 'block input: '
sb_within "$(awk -v k="${f[17]}" 'BEGIN { printf "%.3f", k / 1024 }')" $mib 3 || bad=1
printf 'seeks: '
sb_within "${f[19]}" $iops 10 || bad=1
# 21..25: num_files, max_size, min_size, num_dirs, file_chunk_size.
[[ ${f[21]} == 1 && ${f[22]} == 4096 && ${f[23]} == 1024 && ${f[24]} == 4 ]] ||
    { echo "file test parameters: ${f[*]:21:5}"; bad=1; }
for i in 26 28 30 32 34 36; do
    [[ -n ${f[$i]} ]] || { echo "file test field $i is empty"; bad=1; }
done
grep -q 'incomplete' "$out/text" && { echo "a test is incomplete"; bad=1; }
[[ $bad -eq 0 ]] || sb_fail "a test missed its true speed or did not run"
leftover=$(find "$mnt" -mindepth 1 -not -name lost+found -print -quit)
[[ -z $leftover ]] || sb_fail "left behind: $leftover"
echo "PASS: block output ${f[11]} K/s and input ${f[17]} K/s within 3% of $mib MiB/s," \
    "seeks ${f[19]}/s within 10% of $iops, with a 256 MiB file in $ram_mib MiB of RAM"
