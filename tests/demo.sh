#!/bin/sh
# make demo: boot the stock Debian 6.1 kernel in QEMU and re-run the seed's
# dd/cat experiments without and with the module; print the table.
set -eu
MBR_TOP=$(cd "$(dirname "$0")/.." && pwd)
MBR_BUILD=$MBR_TOP/build
export MBR_TOP MBR_BUILD
. "$MBR_TOP/tests/lib-host.sh"
sh "$MBR_TOP/tests/setup.sh"
krel=$(mbr_test_krels | grep "^${MBR_DEMO_SERIES:-6.1}\." | head -n 1)
helpers=$(mbr_build_helpers amd64)
ko=$(mbr_build_ko "$krel")
sh "$MBR_TOP/tests/vm/mkinitramfs.sh" "$krel" "$ko" "$helpers" "$MBR_BUILD/initrd-demo.gz"
echo "Running the seed experiments on $krel (QEMU TCG, 2 vCPUs, 1 GiB, group memory.max 128M) ..."
MBR_DISK_MB=2048 MBR_ACCEL=${MBR_ACCEL:-tcg,thread=multi} \
	sh "$MBR_TOP/tests/vm/run.sh" "$krel" "$MBR_BUILD/initrd-demo.gz" demo 2 demo >"$MBR_BUILD/demo.out"
{
	echo "Kernel $krel, $(date -u +%Y-%m-%d), QEMU TCG 2 vCPUs, 1 GiB RAM, group memory.max 128M, marks high 24m / low 12m below it"
	echo
	sed -n 's/^DEMO| *//p' "$MBR_BUILD/demo.out" | sed 's/^/| /'
} >"$MBR_BUILD/demo.md"
cat "$MBR_BUILD/demo.md"
grep '^#' "$MBR_BUILD/demo.out" || true
grep -q '^ok - demo: demo ran' "$MBR_BUILD/demo.out" && ! grep -q '^not ok' "$MBR_BUILD/demo.out"
