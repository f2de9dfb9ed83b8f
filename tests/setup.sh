#!/bin/sh
# Install, as root on Debian 12, every package the test harness needs and
# that is not installed yet: the QEMU/busybox tool set (x86 and arm64,
# with the arm64 cross gcc of the static guest helpers), bochs and the ISO
# tools of the IBT check, and, for each test kernel of tests/kernels.sh
# of the host's own release (every flavour), its unsigned image and its
# headers; the package build tools of make deb (dh-dkms, debhelper,
# dpkg-dev); mmdebstrap, which makes the other releases' chroots
# (tests/chroot.sh: their kernels are installed there, not here).
#   setup.sh [PKG...]       all of that, and PKG
#   setup.sh only PKG...    only PKG (make deb's build dependencies)
set -eu
here=$(cd "$(dirname "$0")" && pwd)

if [ "${1:-}" = only ]; then
	shift
	want="$*"
	set --
else
	want="qemu-system-x86 qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross binutils-aarch64-linux-gnu busybox-static kmod e2fsprogs dkms cpio gcc make libc6-dev xz-utils zstd perl binutils python3 linux-source-6.12 linux-source-6.1 bochs bochsbios vgabios isolinux syslinux-common xorriso dh-dkms debhelper dpkg-dev fakeroot openssl git mmdebstrap"
	for krel in $("$here/kernels.sh" all bookworm | awk '{print $2 "-" $3}'); do
		want="$want linux-image-$krel-unsigned linux-headers-$krel"
	done
fi
want="$want $*"

missing=
for p in $want; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "# setup: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# The guests boot the test initramfs, never the kernel's own: no
# update-initramfs for each kernel installed (minutes on a fresh machine).
export INITRD=No
# A fresh machine's package lists may not be there or be stale.
apt-get install -y -q --no-install-recommends $missing >&2 || {
	apt-get update -q >&2
	apt-get install -y -q --no-install-recommends $missing >&2
}
