#!/bin/sh
# Developer loop: build the module for one kernel and run some guest
# cases in one VM.   usage: dev.sh KREL CPUS CASE[,CASE...]
set -eu
MBR_TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$MBR_TOP/tests/lib-host.sh"
mbr_build_init
helpers=$(mbr_build_helpers "$(mbr_krel_arch "$1")")
MBR_KROOT=$(mbr_kroot "$1")
MBR_KERNEL=${MBR_KERNEL:-$(mbr_kernel_image "$1")}
export MBR_KROOT MBR_KERNEL
ko=$(mbr_build_ko "$1") || { tail -n 30 "$MBR_BUILD/ko-$1/build.log"; exit 1; }
grep -i warning "$MBR_BUILD/ko-$1/build.log" || true
[ "$(mbr_krel_arch "$1")" = arm64 ] ||
	python3 "$MBR_TOP/tests/static_calls.py" "$1" "$MBR_BUILD/ko-$1" "${MBR_KROOT:-/}" | grep -v '^ok ' || true
MBR_FI_KO=$(mbr_build_ko "$1" fi)
export MBR_FI_KO
# The kernel's memcg selftests of this kernel's series (cached).
case ,$3, in
*,memcg_selftests,*)
	MBR_SELFTESTS=$(sh "$MBR_TOP/tests/selftests/build.sh" "$1") || exit 1
	export MBR_SELFTESTS
	;;
esac
sh "$MBR_TOP/tests/vm/mkinitramfs.sh" "$1" "$ko" "$helpers" "$MBR_BUILD/initrd-dev${MBR_DEV_TAG:-}-$1.gz"
MBR_DISK_MB=${MBR_DISK_MB:-3072} sh "$MBR_TOP/tests/vm/run.sh" "$1" "$MBR_BUILD/initrd-dev${MBR_DEV_TAG:-}-$1.gz" "dev${MBR_DEV_TAG:-}-$1" "$2" "$3"
