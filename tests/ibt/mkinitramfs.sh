#!/bin/sh
# Build the initramfs of the IBT guest: busybox, zram and its
# dependencies (decompressed for busybox insmod), the module under test
# and the negative control. The kernel-only part is cached per kernel in
# CACHE_DIR; the per-run part is a second cpio archive appended to it
# (the kernel unpacks concatenated archives in order).
#
# usage: mkinitramfs.sh KREL MODULE_KO NEGCTL_KO CACHE_DIR OUT.cpio.gz
set -eu
krel=$1 ko=$2 negctl=$3 cache=$4 out=$5
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
moddir=${MBR_KROOT:-}/lib/modules/$krel
base=$cache/base-$krel.cpio.gz
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
chmod 755 "$root"

# deps: a module and its dependencies, dependencies first.
. "$top/tests/lib-modules.sh"

# The cached part is rebuilt when anything that makes it is newer.
if [ ! -s "$base" ] || [ "$base" -ot "$moddir/modules.dep" ] ||
	[ "$base" -ot /bin/busybox ] || [ "$base" -ot "$0" ] ||
	[ "$base" -ot "$top/tests/lib-modules.sh" ]; then
	mkdir -p "$root/b/bin" "$root/b/proc" "$root/b/sys" "$root/b/dev" \
		"$root/b/mnt" "$root/b/kmod"
	cp /bin/busybox "$root/b/bin/busybox"
	ln -s busybox "$root/b/bin/sh"
	: >"$root/b/kmod/order"
	for p in $(deps zram); do
		name=$(basename "$p" | sed 's/\.ko.*//')
		case $p in
		*.xz) xz -dc "$moddir/$p" >"$root/b/kmod/$name.ko" ;;
		*.zst) zstd -qdc "$moddir/$p" >"$root/b/kmod/$name.ko" ;;
		*) cp "$moddir/$p" "$root/b/kmod/$name.ko" ;;
		esac
		echo "$name" >>"$root/b/kmod/order"
	done
	(cd "$root/b" && find . | cpio -o -H newc --quiet) | gzip -1 >"$base.tmp"
	mv "$base.tmp" "$base"
fi

mkdir "$root/r"
cp "$ko" "$root/r/memcg_bgreclaim.ko"
cp "$negctl" "$root/r/ibt_negctl.ko"
cp "$here/init" "$root/r/init"
chmod 755 "$root/r/init"
(cd "$root/r" && find . | cpio -o -H newc --quiet) | gzip -1 >"$root/run.cpio.gz"
cat "$base" "$root/run.cpio.gz" >"$out"
