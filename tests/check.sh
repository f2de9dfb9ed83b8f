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
set -u
MBR_TOP=$(cd "$(dirname "$0")/.." && pwd)
MBR_BUILD=$MBR_TOP/build
export MBR_TOP MBR_BUILD
. "$MBR_TOP/tests/lib-host.sh"
mkdir -p "$MBR_BUILD"
TAP=$MBR_BUILD/check.tap
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

cases=${MBR_CASES:-$(cd "$MBR_TOP/tests/cases" && ls *.sh | sed 's/\.sh$//' | grep -v -e '^nr_workers$' -e '^cpu_hotplug$' | tr '\n' ' ')}
for krel in $(mbr_test_krels); do
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

	sh "$MBR_TOP/tests/dkms.sh" build "$krel" | emit

	MBR_FI_KO=$(mbr_build_ko "$krel" fi) ||
		echo "not ok - build[$krel]: fault-injection variant builds" | emit
	export MBR_FI_KO
	initrd=$MBR_BUILD/initrd-$krel.gz
	if ! sh "$MBR_TOP/tests/vm/mkinitramfs.sh" "$krel" "$ko" "$MBR_BUILD/helpers" "$initrd"; then
		echo "not ok - vm[$krel]: initramfs builds" | emit
		continue
	fi
	list=$(echo $cases | tr ' ' ',')
	MBR_DISK_MB=4096 sh "$MBR_TOP/tests/vm/run.sh" "$krel" "$initrd" "$krel-main" 2 "$list" |
		sed "s/^\(\(not \)\?ok\) - /\1 - [$krel] /" | emit
	if [ -z "${MBR_CASES:-}" ] || echo " $MBR_CASES " | grep -q ' nr_workers '; then
		for cpus in 1 2 4 9; do
			sh "$MBR_TOP/tests/vm/run.sh" "$krel" "$initrd" "$krel-cpu$cpus" "$cpus" nr_workers |
				sed "s/^\(\(not \)\?ok\) - /\1 - [$krel cpus=$cpus] /" | emit
		done
	fi
	if [ -z "${MBR_CASES:-}" ] || echo " $MBR_CASES " | grep -q ' cpu_hotplug '; then
		MBR_DISK_MB=1024 sh "$MBR_TOP/tests/vm/run.sh" "$krel" "$initrd" "$krel-cpu4-hotplug" 4 cpu_hotplug |
			sed "s/^\(\(not \)\?ok\) - /\1 - [$krel cpus=4] /" | emit
	fi
done

sh "$MBR_TOP/tests/style.sh" | emit

pass=$(grep -c '^ok ' "$TAP")
fail=$(grep -c '^not ok ' "$TAP")
skipped=$(grep -c '^ok .*# SKIP' "$TAP")
echo "1..$((pass + fail))"
echo "$((pass - skipped)) passed, $fail failed, $skipped skipped"
[ "$fail" = 0 ]
