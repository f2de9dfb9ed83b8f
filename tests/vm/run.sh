#!/bin/sh
# Boot one stock Debian kernel in QEMU with the test initramfs and run the
# named guest cases; print their TAP lines (and the case diagnostics) on
# stdout. The kernel console goes to $MBR_OUT/console-<tag>.log.
#
# usage: run.sh KREL INITRAMFS TAG CPUS CASE[,CASE...]
# env:   MBR_ACCEL (tcg,thread=single), MBR_MEM (1024), MBR_TIMEOUT (1500),
#        MBR_OUT (build dir), MBR_DISK_MB (scratch ext4 disk, 0 = none),
#        MBR_KERNEL (the kernel image, when not /boot/vmlinuz-KREL),
#        MBR_APPEND (more kernel arguments), MBR_HANG_PATTERN (an ERE:
#        stop the guest as soon as its console prints a match, and
#        name the first matching line)
set -eu
krel=$1 initrd=$2 tag=$3 cpus=$4 cases=$5
out=${MBR_OUT:-build}
accel=${MBR_ACCEL:-tcg,thread=single}
mem=${MBR_MEM:-1024}
disk_mb=${MBR_DISK_MB:-0}
mkdir -p "$out"
console=$out/console-$tag.log
results=$out/results-$tag.log
: >"$results"
: >"$console"	# an earlier boot's lines must not be taken for this one's

disk_args=
if [ "$disk_mb" -gt 0 ]; then
	disk=$out/disk-$tag.img
	rm -f "$disk"
	truncate -s "${disk_mb}M" "$disk"
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$disk"
	disk_args="-drive file=$disk,if=virtio,format=raw,cache=unsafe"
fi

# KVM hangs on the machines this was written for; TCG is the default.
# arm64: the virt board has one PL011, so the results take a virtio
# console; pauth-impdef: the architected pointer authentication is slow
# under TCG, and the kernel signs every return.
args="panic=-1 oops=panic loglevel=7 mbr.cases=$cases ${MBR_APPEND:-}"
# The cases whose timing QEMU's one thread distorts ask (one_thread_place).
case $accel in *thread=single*) args="$args mbr.one_thread=1" ;; esac
case $krel in
*-arm64)
	set -- qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on \
		-append "console=ttyAMA0 mbr.out=hvc0 $args" -serial "file:$console" \
		-device virtio-serial-pci -chardev "file,id=mbrout,path=$results" \
		-device virtconsole,chardev=mbrout
	;;
*)
	set -- qemu-system-x86_64 -cpu max \
		-append "console=ttyS0 tsc=reliable $args" \
		-serial "file:$console" -serial "file:$results"
	;;
esac
# shellcheck disable=SC2086
timeout -k 10 "${MBR_TIMEOUT:-1500}" "$@" \
	-accel "$accel" -smp "$cpus" -m "$mem" \
	-kernel "${MBR_KERNEL:-/boot/vmlinuz-$krel}" -initrd "$initrd" \
	-display none -no-reboot -monitor none \
	$disk_args >"$out/qemu-$tag.log" 2>&1 &
qemu=$!
hung=
if [ -n "${MBR_HANG_PATTERN:-}" ]; then
	# A wedged guest would otherwise only end at the timeout.
	while kill -0 $qemu 2>/dev/null; do
		if grep -Eq "$MBR_HANG_PATTERN" "$console" 2>/dev/null; then
			sleep 3	# the rest of the report (its stack traces)
			kill $qemu
			break
		fi
		sleep 5
	done
fi
wait $qemu || rc=$?
[ -z "${MBR_HANG_PATTERN:-}" ] ||
	hung=$(grep -Em 1 "$MBR_HANG_PATTERN" "$console" | tr -d '\r')
rc=${rc:-0}
[ -n "${disk:-}" ] && rm -f "$disk"

tr -d '\r' <"$results" | grep -v -e '^MBR-BEGIN' -e '^MBR-END' || true
if ! grep -q '^MBR-END' "$results"; then
	echo "not ok - vm[$tag]: guest ran to the end (qemu rc=$rc; see $console)"
	[ -z "$hung" ] || echo "# vm[$tag]: console: $hung"
	tail -n 30 "$console" | sed 's/^/#   /'
fi
