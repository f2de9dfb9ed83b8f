#!/bin/sh
# Build the test initramfs for one kernel: busybox, the kernel modules the
# tests need (with their dependencies, decompressed for busybox insmod),
# the module under test, the static test helpers and the test cases.
#
# usage: mkinitramfs.sh KREL MODULE_KO HELPER_DIR OUT.cpio.gz
# env:   MBR_KROOT (the root the kernel is installed in: its release's
#        chroot, or / for the host's own)
#        MBR_SELFTESTS (a directory of tests/selftests/build.sh for this
#        kernel's series: the kernel's memcg selftests, copied with their
#        lists of known failures to /selftests for memcg_selftests)
set -eu
krel=$1 ko=$2 helpers=$3 out=$4
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
MBR_TOP=$top
. "$top/tests/lib-host.sh"
moddir=${MBR_KROOT:-}/lib/modules/$krel
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
chmod 755 "$root"	# the guest's /, traversed by the unprivileged tests too

mkdir -p "$root/bin" "$root/sbin" "$root/proc" "$root/sys" "$root/dev" \
	"$root/tmp" "$root/mnt" "$root/kmod" "$root/tests" "$root/etc"
cp "$(mbr_busybox "$(mbr_krel_arch "$krel")")" "$root/bin/busybox"
for t in sh mount mkdir cat echo; do ln -s busybox "$root/bin/$t"; done

# deps: the modules in load order, dependencies first, from modules.dep.
. "$top/tests/lib-modules.sh"
: >"$root/kmod/order"
# ext4 wants crc32c through the crypto API (a softdep, not in modules.dep).
# A kernel without modules.dep (the debug kernel) has them all built in.
if [ -f "$moddir/modules.dep" ]; then
	# virtio_console: arm64's results port (a module in 6.1).
	port=
	[ "$(mbr_krel_arch "$krel")" = arm64 ] && port=virtio_console
	for m in virtio_pci virtio_blk $port crc32c_generic ext4 zram loop; do
		for p in $(deps "$m"); do
			name=$(basename "$p" | sed 's/\.ko.*//')
			grep -qx "$name" "$root/kmod/order" && continue
			mbr_unpack_ko "$moddir/$p" "$root/kmod/$name.ko"
			echo "$name" >>"$root/kmod/order"
		done
	done
fi

cp "$ko" "$root/memcg_bgreclaim.ko"
# The host's list of its static calls (tests/static_calls.py), if made.
sc=$(dirname "$ko")/static_calls.txt
[ -f "$sc" ] && cp "$sc" "$root/etc/static_calls.txt"
# The fault-injection variant, when built beside it.
fi_ko=${MBR_FI_KO:-}
[ -n "$fi_ko" ] && cp "$fi_ko" "$root/memcg_bgreclaim_fi.ko"
cp "$helpers"/* "$root/bin/"
if [ -n "${MBR_SELFTESTS:-}" ]; then
	mkdir -p "$root/selftests"
	cp "$MBR_SELFTESTS"/* "$top"/tests/selftests/known-* "$root/selftests/"
fi
cp "$here/init" "$root/init"
cp "$here/lib.sh" "$root/tests/lib.sh"
cp "$top"/tests/cases/*.sh "$top"/tests/demo/*.sh "$top"/tests/bench/*.sh "$root/tests/"
ln -s probe "$root/bin/chunks"
ln -s probe "$root/bin/pfault"
ln -s probe "$root/bin/bursts"
# Settings for the guest scripts (VAR=value lines), sourced by /init.
[ -n "${MBR_GUEST_ENV:-}" ] && cp "$MBR_GUEST_ENV" "$root/etc/mbr.env"
chmod +x "$root/init"
echo "$krel" >"$root/etc/krel"

(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out"
