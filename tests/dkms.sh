#!/bin/sh
# DKMS packaging test and installer.
#   dkms.sh build KREL    add the sources to DKMS, "dkms build -k KREL",
#                         report TAP, and take them out again
#   dkms.sh install KREL  add, build and install for KREL, and keep them
set -u
mode=$1 krel=$2
top=$(cd "$(dirname "$0")/.." && pwd)
name=memcg_bgreclaim
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
src=/usr/src/$name-$ver
log=$top/build/dkms-$krel.log
mkdir -p "$top/build"

put_sources() {
	dkms remove "$name/$ver" --all >/dev/null 2>&1 || true
	rm -rf "$src"
	mkdir -p "$src"
	(cd "$top" && cp -r dkms.conf Kbuild Makefile VERSION module sysfs include "$src/")
	dkms add "$name/$ver"
}

case $mode in
install)
	put_sources && dkms build -k "$krel" "$name/$ver" && dkms install -k "$krel" "$name/$ver"
	exit $?
	;;
build) ;;
*) echo "usage: dkms.sh build|install KREL" >&2; exit 2 ;;
esac

if [ "$ver" = "$(cat "$top/VERSION")" ]; then
	echo "ok - dkms[$krel]: dkms.conf version matches VERSION ($ver)"
else
	echo "not ok - dkms[$krel]: dkms.conf version $ver matches VERSION $(cat "$top/VERSION")"
fi
if put_sources >"$log" 2>&1 && dkms build -k "$krel" "$name/$ver" >>"$log" 2>&1; then
	ko=$(find "/var/lib/dkms/$name/$ver/$krel" -name "$name.ko*" | head -n 1)
	if [ -n "$ko" ] && modinfo -F vermagic "$ko" | grep -q "^$krel "; then
		echo "ok - dkms[$krel]: dkms build produces a module for $krel"
	else
		echo "not ok - dkms[$krel]: dkms build produces a module for $krel"
	fi
else
	echo "not ok - dkms[$krel]: dkms add + build"
	tail -n 20 "$log" | sed 's/^/#   /'
	cat "/var/lib/dkms/$name/$ver/build/make.log" 2>/dev/null | tail -n 20 | sed 's/^/#   /'
fi
dkms remove "$name/$ver" --all >/dev/null 2>&1 || true
rm -rf "$src"
