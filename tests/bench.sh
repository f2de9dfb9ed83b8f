#!/bin/sh
# make bench [QUICK=1] [SCEN=a,b] [CONTENDERS=a,b] [SERIES=6.12]
# [REPS=N] [PROBE_S=S]: every benchmark
# scenario on both test kernels (QEMU TCG, 2 vCPUs in parallel). All the
# contenders of a scenario run in one boot, on the same data; the
# scenarios are spread over a few boots so that a guest lost to TCG is
# rerun alone. Writes build/bench/results.json, bench.md and bench.svg.
set -eu
MBR_TOP=$(cd "$(dirname "$0")/.." && pwd)
MBR_BUILD=$MBR_TOP/build
export MBR_TOP MBR_BUILD
. "$MBR_TOP/tests/lib-host.sh"
out=$MBR_BUILD/bench
mkdir -p "$out"
sh "$MBR_TOP/tests/setup.sh"
# REPS and PROBE_S override the repetitions and the probe's seconds, for
# a longer look at a tail that three 20 s runs cannot settle.
printf 'MBR_QUICK=%s\nMBR_REPS=%s\nMBR_PROBE_S=%s\n' "${QUICK:-0}" \
	"${REPS:-}" "${PROBE_S:-}" >"$out/guest.env"
parts=${SCEN:-"read,write,probe anon,reaction,fairness,sweep overhead,scale tenants auto"}
# Multi-threaded TCG can oops in its int3 emulation (ftrace text
# patching), or leave a vCPU that never answers the patching IPI (a soft
# lockup or RCU stall in text_poke_bp); the guest is stopped at once and
# the boot is retried, and reported. Any other oops, panic or stall fails
# the bench.
MBR_HANG_PATTERN='Oops: |Kernel panic|soft lockup|hard LOCKUP|self-detected stall|blocked for more than'
export MBR_HANG_PATTERN
# tcg_fault LINE CONSOLE: is the guest's loss one of TCG's known faults?
tcg_fault() {
	case $1 in
	*'Oops: int3'*) return 0 ;;
	*'soft lockup'* | *'self-detected stall'*)
		# a vCPU that never answered the text-patching IPI
		grep -q 'text_poke_bp' "$2" ;;
	*) return 1 ;;
	esac
}
: >"$out/raw.txt"
start=$(date +%s)
krels=
# FLAVOURS=arm64: the arm64 kernels (6.1, trixie's 6.12, 7.x), under
# qemu-system-aarch64; TCG's timings are comparable only within one
# architecture.
for f in ${FLAVOURS:-amd64}; do
	case $f in
	*arm64) krels="$krels $(mbr_test_krels "$f" "bookworm trixie trixie-backports sid")" ;;
	*) krels="$krels $(mbr_test_krels "$f")" ;;
	esac
done
# SERIES=6.12 (or 6.1): one kernel series only, for a quicker rerun.
if [ -n "${SERIES:-}" ]; then
	krels=$(for k in $krels; do case $k in "$SERIES".*) echo "$k" ;; esac; done)
	[ -n "$krels" ] || { echo "bench: no test kernel of series $SERIES" >&2; exit 2; }
fi
for krel in $krels; do
	ko=$(mbr_build_ko "$krel")
	helpers=$(mbr_build_helpers "$(mbr_krel_arch "$krel")")
	MBR_KROOT=$(mbr_kroot "$krel")
	MBR_KERNEL=$(mbr_kernel_image "$krel")
	export MBR_KROOT MBR_KERNEL
	MBR_GUEST_ENV=$out/guest.env sh "$MBR_TOP/tests/vm/mkinitramfs.sh" \
		"$krel" "$ko" "$helpers" "$out/initrd-$krel.gz"
	n=0
	for part in $parts; do
		n=$((n + 1))
		tag=bench-$krel-$n
		try=1
		while :; do
			echo "# bench on $krel: $part, attempt $try" >&2
			MBR_DISK_MB=4096 MBR_ACCEL=tcg,thread=multi MBR_TIMEOUT=3000 \
				MBR_APPEND="mbr.scen=$part${CONTENDERS:+ mbr.contenders=$CONTENDERS}" \
				sh "$MBR_TOP/tests/vm/run.sh" "$krel" "$out/initrd-$krel.gz" \
				"$tag" 2 bench >"$out/run-$tag.txt" || true
			grep '^# bench:' "$out/run-$tag.txt" >&2 || true
			grep -q '^ok - bench: bench ran' "$out/run-$tag.txt" && break
			why=$(sed -n 's/^# vm\[.*\]: console: //p' "$out/run-$tag.txt")
			tcg_fault "$why" "$MBR_BUILD/console-$tag.log" && [ $try -lt 3 ] || {
				echo "bench failed on $krel ($part)${why:+: $why}" >&2
				tail -n 30 "$out/run-$tag.txt" >&2
				exit 1
			}
			echo "# $krel ($part): guest lost to TCG on attempt $try: $why; retried" |
				tee -a "$out/raw.txt" >&2
			try=$((try + 1))
		done
		grep '^BENCH ' "$out/run-$tag.txt" >>"$out/raw.txt"
	done
done
echo "# make bench${QUICK:+ QUICK=$QUICK} took $((($(date +%s) - start + 30) / 60)) min for both kernels" |
	tee -a "$out/raw.txt" >&2
python3 "$MBR_TOP/tests/bench/report.py" "$out"
cat "$out/bench.md"
