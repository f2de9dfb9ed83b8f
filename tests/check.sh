#!/bin/sh
# make check: everything, on every test kernel, as TAP, ending with the
# plain line "N passed, N failed". Exit status 1 on any failure.
#
#   host unit tests of the pure logic
#   per kernel: W=1 build, dkms build, then the VM suite on the stock
#   kernel booted in QEMU (2 CPUs), and the worker-count case on 1, 4
#   and 9 CPUs
#   checkpatch over the sources
#
# MBR_CASES="a b" limits the VM suite to those cases.
# MBR_DEBUG=1 (make check-debug) runs the same suite on the debug kernel
# of tests/debug/kernel.sh (KASAN, lockdep, kmemleak...) instead, built
# from linux-source-6.12 once and cached; no DKMS build there.
set -u
MBR_TOP=$(cd "$(dirname "$0")/.." && pwd)
MBR_BUILD=$MBR_TOP/build
export MBR_TOP MBR_BUILD
. "$MBR_TOP/tests/lib-host.sh"
mkdir -p "$MBR_BUILD"
TAP=$MBR_BUILD/check${MBR_DEBUG:+-debug}.tap
: >"$TAP"

# Number the TAP lines of a producer as they come, and keep them.
emit() {
	while IFS= read -r line; do
		case $line in
		"ok "* | "not ok "*)
			n=$(($(grep -c '^\(not \)\?ok ' "$TAP") + 1))
			desc=${line#ok }
			case $line in "not ok "*) desc=${line#not ok }; pre="not ok" ;; *) pre=ok ;; esac
			desc=$(echo "$desc" | sed 's/^[0-9]* *//')
			echo "$pre $n $desc" | tee -a "$TAP"
			;;
		*) echo "$line" ;;
		esac
	done
}

echo "TAP version 13"
sh "$MBR_TOP/tests/setup.sh" || { echo "not ok - setup: installing the test packages" | emit; }

sh "$MBR_TOP/tests/unit.sh" | emit

# Static helpers for the guest (busybox has no errno-exact writer).
mkdir -p "$MBR_BUILD/helpers"
for c in "$MBR_TOP"/tests/helpers/*.c; do
	gcc -static -O2 -Wall -Werror -o "$MBR_BUILD/helpers/$(basename "$c" .c)" "$c" ||
		echo "not ok - helpers: build $(basename "$c")" | emit
done

krels=$(mbr_test_krels)
if [ -n "${MBR_DEBUG:-}" ]; then
	stock=$(echo "$krels" | grep '^6\.12\.' | head -n 1)
	echo "# check-debug: building the debug kernel (cached; the first build takes ~30 min)"
	MBR_KDIR=$(sh "$MBR_TOP/tests/debug/kernel.sh" "$stock")
	if [ -z "$MBR_KDIR" ]; then
		echo "not ok - debug kernel builds" | emit
		krels=
	else
		echo "ok - debug kernel builds" | emit
		krels=$(make -s -C "$MBR_KDIR" kernelrelease)
		MBR_KERNEL=$MBR_KDIR/arch/x86/boot/bzImage
		# KASAN and lockdep under TCG: several times slower than stock.
		MBR_TIMEOUT=${MBR_TIMEOUT:-10800}
		# KASAN's shadow (1/8 of RAM), its quarantine and kmemleak's
		# metadata: 10,000 cgroups do not fit the stock suite's 1 GiB.
		MBR_MEM=${MBR_MEM:-2048}
		export MBR_KDIR MBR_KERNEL MBR_TIMEOUT MBR_MEM
	fi
fi

# wanted CASE: the suite runs CASE (every case unless MBR_CASES names some).
wanted() { [ -z "${MBR_CASES:-}" ] || echo " $MBR_CASES " | grep -q " $1 "; }

# The guests of one kernel's suite, one "TAG CPUS DISK_MB CASES" line
# each, in batches separated by "-": the main cases on 2 CPUs, the
# worker count on 1, 2, 4 and 9 CPUs, hotplug on 4. The debug kernel is
# several times slower than stock, so there the batches hold two guests
# (a single-threaded TCG guest is one host thread) and the main cases
# are split over two of them.
vm_jobs() {
	main=$(echo $cases | tr ' ' '\n' | grep -v -e '^nr_workers$' -e '^cpu_hotplug$' | tr '\n' ' ')
	if [ -n "${MBR_DEBUG:-}" ]; then
		a= b=
		for c in $main; do
			a="$a${a:+,}$c"
			t=$a a=$b b=$t	# alternate: the next case goes to the other guest
		done
		[ -n "$b" ] && echo "main-a 2 4096 $b"
		[ -n "$a" ] && echo "main-b 2 4096 $a"
		pair=2
	else
		[ -n "$main" ] && echo "main 2 4096 $(echo $main | tr ' ' ',')"
		pair=1
	fi
	echo -
	if wanted nr_workers; then
		n=0
		for c in 1 2 4 9; do
			echo "cpu$c $c 0 nr_workers"
			n=$((n + 1))
			[ $((n % pair)) = 0 ] && echo -
		done
	fi
	wanted cpu_hotplug && echo "cpu4-hotplug 4 1024 cpu_hotplug"
	echo -
}

# vm_suite KREL INITRD: boot each batch of guests side by side, then
# report their TAP lines in order, each labelled with the kernel (and
# the CPU count where it is not the main guests' 2).
vm_suite() {
	batch=
	vm_jobs | while read -r tag cpus disk list; do
		if [ "$tag" != - ]; then
			MBR_DISK_MB=$disk sh "$MBR_TOP/tests/vm/run.sh" "$1" "$2" "$1-$tag" "$cpus" "$list" \
				</dev/null >"$MBR_BUILD/vm-$1-$tag.tap" &
			batch="$batch $tag:$cpus"
			continue
		fi
		wait
		for job in $batch; do
			label=$1
			case $job in main*) ;; *) label="$1 cpus=${job#*:}" ;; esac
			sed "s/^\(\(not \)\?ok\) - /\1 - [$label] /" "$MBR_BUILD/vm-$1-${job%:*}.tap"
		done
		batch=
	done | emit
}

cases=${MBR_CASES:-$(cd "$MBR_TOP/tests/cases" && ls *.sh | sed 's/\.sh$//' | grep -v -e '^nr_workers$' -e '^cpu_hotplug$' | tr '\n' ' ')}
for krel in $krels; do
	ko=$(mbr_build_ko "$krel")
	if [ -z "$ko" ]; then
		echo "not ok - build[$krel]: module builds" | emit
		sed 's/^/#   /' "$MBR_BUILD/ko-$krel/build.log" | tail -n 40
		continue
	fi
	echo "ok - build[$krel]: module builds" | emit
	w=$(grep -c -i 'warning' "$MBR_BUILD/ko-$krel/build.log")
	if [ "$w" = 0 ]; then r=ok; else r="not ok"; fi
	echo "$r - build[$krel]: W=1 build has no warnings ($w)" | emit
	grep -i 'warning' "$MBR_BUILD/ko-$krel/build.log" | head -n 20 | sed 's/^/#   /'
	# No indirect branch can reach a resolved function (IBT).
	python3 "$MBR_TOP/tests/static_calls.py" "$krel" "$MBR_BUILD/ko-$krel" | emit

	[ -z "${MBR_DEBUG:-}" ] && sh "$MBR_TOP/tests/dkms.sh" build "$krel" | emit

	MBR_FI_KO=$(mbr_build_ko "$krel" fi) ||
		echo "not ok - build[$krel]: fault-injection variant builds" | emit
	export MBR_FI_KO
	initrd=$MBR_BUILD/initrd-$krel.gz
	if ! sh "$MBR_TOP/tests/vm/mkinitramfs.sh" "$krel" "$ko" "$MBR_BUILD/helpers" "$initrd"; then
		echo "not ok - vm[$krel]: initramfs builds" | emit
		continue
	fi
	vm_suite "$krel" "$initrd"
done

[ -z "${MBR_DEBUG:-}" ] && sh "$MBR_TOP/tests/style.sh" | emit

pass=$(grep -c '^ok ' "$TAP")
fail=$(grep -c '^not ok ' "$TAP")
skipped=$(grep -c '^ok .*# SKIP' "$TAP")
echo "1..$((pass + fail))"
echo "$((pass - skipped)) passed, $fail failed, $skipped skipped"
[ "$fail" = 0 ]
