#!/bin/sh
# make check-ibt: build the module for the newest Debian 6.12 test kernel
# (Debian's 6.1 is built without CONFIG_X86_KERNEL_IBT) and run
# tests/ibt/run.sh on it. MBR_IBT_KREL chooses another kernel. The module
# is built under build/ibt/, apart from the main suite's builds.
set -u
MBR_TOP=$(cd "$(dirname "$0")/../.." && pwd)
MBR_BUILD=$MBR_TOP/build/ibt
export MBR_TOP MBR_BUILD
. "$MBR_TOP/tests/lib-host.sh"
krel=${MBR_IBT_KREL:-$(mbr_test_krels | grep '^6\.12\.' | tail -n 1)}
if [ -z "$krel" ]; then
	echo "not ok - ibt: a Debian 6.12 test kernel is installed"
	exit 1
fi
if ! ko=$(mbr_build_ko "$krel"); then
	echo "not ok - ibt: module builds for $krel (see $MBR_BUILD/ko-$krel/build.log)"
	exit 1
fi
sh "$MBR_TOP/tests/ibt/run.sh" "$krel" "$ko"
