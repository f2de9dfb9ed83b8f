#!/bin/sh
# make bench [QUICK=1]: every benchmark scenario, side by side in one boot
# per kernel, on both test kernels (QEMU TCG, 2 vCPUs in parallel).
# Writes build/bench/results.json, bench.md and bench.svg.
set -eu
MBR_TOP=$(cd "$(dirname "$0")/.." && pwd)
MBR_BUILD=$MBR_TOP/build
export MBR_TOP MBR_BUILD
. "$MBR_TOP/tests/lib-host.sh"
out=$MBR_BUILD/bench
mkdir -p "$out" "$MBR_BUILD/helpers"
sh "$MBR_TOP/tests/setup.sh"
for c in "$MBR_TOP"/tests/helpers/*.c; do
	gcc -static -O2 -Wall -Werror -o "$MBR_BUILD/helpers/$(basename "$c" .c)" "$c"
done
echo "MBR_QUICK=${QUICK:-0}" >"$out/guest.env"
: >"$out/raw.txt"
for krel in $(mbr_test_krels); do
	ko=$(mbr_build_ko "$krel")
	MBR_GUEST_ENV=$out/guest.env sh "$MBR_TOP/tests/vm/mkinitramfs.sh" \
		"$krel" "$ko" "$MBR_BUILD/helpers" "$out/initrd-$krel.gz"
	# Multi-threaded TCG can oops in its int3 emulation (ftrace text
	# patching); such a run is retried, and reported.
	try=1
	while :; do
		echo "# bench on $krel, attempt $try" >&2
		MBR_DISK_MB=4096 MBR_ACCEL=tcg,thread=multi MBR_TIMEOUT=3000 \
			sh "$MBR_TOP/tests/vm/run.sh" "$krel" "$out/initrd-$krel.gz" \
			"bench-$krel" 2 bench >"$out/run-$krel.txt" || true
		if grep -q '^ok - bench: bench ran' "$out/run-$krel.txt"; then
			break
		fi
		grep -q 'Oops: int3' "$MBR_BUILD/console-bench-$krel.log" &&
			echo "# $krel: TCG int3 oops on attempt $try, retrying" | tee -a "$out/raw.txt" >&2
		try=$((try + 1))
		[ $try -le 3 ] || { echo "bench failed on $krel" >&2; tail -n 20 "$out/run-$krel.txt" >&2; exit 1; }
	done
	grep '^BENCH ' "$out/run-$krel.txt" >>"$out/raw.txt"
done
python3 "$MBR_TOP/tests/bench/report.py" "$out"
cat "$out/bench.md"
