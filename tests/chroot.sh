#!/bin/sh
# The Debian releases other than the host's (trixie with its backports,
# sid), each as a minimal chroot made with mmdebstrap and kept outside
# the clone, in $MBR_CACHE/chroot/RELEASE. A kernel of such a release is
# built, as DKMS builds it there, inside its chroot: its own gcc, kbuild
# and headers (sid's kbuild needs a newer glibc than the host's). The
# kernel image and modules are installed in the same chroot, so that
# ROOT/boot/vmlinuz-KREL and ROOT/lib/modules/KREL are what a guest boots.
#
#   chroot.sh root RELEASE            print the chroot's path
#   chroot.sh ensure RELEASE [PKG...] make it (once), install what is
#                                     missing of PKG, print its path
#   chroot.sh run RELEASE CMD...      run CMD inside, with /proc and /dev
#   chroot.sh kernel RELEASE KREL     install kernel KREL's headers, image
#                                     and modules (once), print the path
#
# An arm64 kernel (KREL ending in -arm64) is built there with the
# release's cross compiler, the one its headers' .kernelvariables name
# (aarch64-linux-gnu-gcc-N), and the release's amd64 kbuild; its arm64
# packages are unpacked into the chroot with dpkg-deb, not installed:
# their dependencies (an arm64 gcc) would replace the chroot's own.
#
# RELEASE: trixie (trixie, trixie-security, trixie-backports), sid, or
# bookworm (the host's own, for its arm64 kernel's cross toolchain);
# trixie-backports is taken as trixie, whose chroot has it enabled.
# The chroot's apt reads Debian's archive, a dated snapshot, so sid's
# Release files are taken even when they read as expired.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib-host.sh"
mode=$1 rel=$2
shift 2
[ "$rel" = trixie-backports ] && rel=trixie
root=$MBR_CACHE/chroot/$rel
mirror=${MBR_MIRROR:-http://deb.debian.org/debian}
base="make gcc libc6-dev kmod dkms xz-utils zstd ca-certificates"

sources() {
	case $rel in
	trixie)
		echo "deb $mirror trixie main"
		echo "deb $mirror trixie-backports main"
		echo "deb ${mirror%/debian}/debian-security trixie-security main"
		;;
	sid) echo "deb $mirror sid main" ;;
	bookworm)
		echo "deb $mirror bookworm main"
		echo "deb ${mirror%/debian}/debian-security bookworm-security main"
		;;
	*) echo "chroot.sh: unknown release '$rel'" >&2; exit 2 ;;
	esac
}

# inside CMD...: CMD in the chroot, with /proc, /sys and /dev mounted in
# a mount namespace of its own, so nothing stays mounted afterwards.
inside() {
	unshare -m sh -c '
		r=$1; shift
		mount -t proc proc "$r/proc" && mount -t sysfs sys "$r/sys" &&
		mount --rbind /dev "$r/dev" && exec chroot "$r" "$@"' sh "$root" \
		env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive INITRD=No "$@"
}

make_root() {
	[ -x "$root/usr/bin/apt-get" ] && [ -f "$root/.mbr-complete" ] && return 0
	command -v mmdebstrap >/dev/null || sh "$here/setup.sh" mmdebstrap >&2
	rm -rf "$root"
	mkdir -p "$MBR_CACHE/chroot"
	echo "# chroot: making the $rel chroot in $root" >&2
	# shellcheck disable=SC2046
	sources | mmdebstrap --variant=apt --include="$(echo $base | tr ' ' ,)" \
		--aptopt='Acquire::Check-Valid-Until "false"' \
		--aptopt='APT::Install-Recommends "false"' \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		"$rel" "$root" - >"$MBR_CACHE/chroot/$rel.log" 2>&1 || {
		tail -n 20 "$MBR_CACHE/chroot/$rel.log" >&2
		rm -rf "$root"
		return 1
	}
	# Kernels installed here are booted by QEMU, not by this chroot.
	mkdir -p "$root/etc/initramfs-tools/conf.d"
	touch "$root/.mbr-complete"
}

# arm64_kernel KREL: the cross toolchain and the kernel's native
# dependencies (headers-common, kbuild) installed, its arm64 packages
# unpacked and its modules.dep made; once, remembered by a stamp.
arm64_kernel() {
	stamp=$root/.mbr-kernel-$1
	[ -f "$stamp" ] && { echo "$root"; return 0; }
	conf=$(sh "$here/archive.sh")
	deps=$(APT_CONFIG=$conf apt-cache show "linux-headers-$1:arm64" | sed -n 's/^Depends: //p' | head -n 1)
	gccv=$(echo "$deps" | grep -o 'gcc-[0-9][0-9]*' | head -n 1)
	native=$(echo "$deps" | tr ',' '\n' | sed -n 's/^ *\(linux-headers-[^ ]*-common\|linux-kbuild-[^ ]*\).*/\1/p')
	[ -n "$gccv" ] && [ -n "$native" ] || { echo "chroot.sh: no arm64 headers for $1 in $rel" >&2; exit 1; }
	pkgs=linux-headers-$1
	if APT_CONFIG=$conf apt-cache show "linux-binary-$1:arm64" >/dev/null 2>&1; then
		pkgs="$pkgs linux-base-$1 linux-binary-$1 linux-modules-$1"
	else
		pkgs="$pkgs linux-image-$1-unsigned"
	fi
	# shellcheck disable=SC2086
	sh "$here/chroot.sh" ensure "$rel" "$gccv-aarch64-linux-gnu" binutils-aarch64-linux-gnu $native >/dev/null
	debs=$MBR_CACHE/arm64/debs
	mkdir -p "$debs"
	echo "# chroot: unpacking the arm64 $1 in $rel" >&2
	# Unpacked aside, then merged into /usr: tar would replace the
	# chroot's lib -> usr/lib symlink by a package's ./lib directory.
	x=$root/tmp/mbr-arm64-$1
	rm -rf "$x"
	mkdir -p "$x"
	for p in $pkgs; do
		ls "$debs/${p}_"*_arm64.deb >/dev/null 2>&1 ||
			(cd "$debs" && APT_CONFIG=$conf apt-get -q -o APT::Sandbox::User=root download "$p:arm64" >/dev/null) ||
			{ echo "chroot.sh: cannot download $p:arm64" >&2; exit 1; }
		dpkg-deb -x "$(ls "$debs/${p}_"*_arm64.deb | sort -V | tail -n 1)" "$x"
	done
	for d in lib bin sbin; do
		[ -d "$x/$d" ] || continue
		mkdir -p "$x/usr/$d"
		cp -a "$x/$d/." "$x/usr/$d/"
		rm -rf "${x:?}/$d"
	done
	cp -a "$x/." "$root/"
	rm -rf "$x"
	inside depmod "$1"
	touch "$stamp"
	echo "$root"
}

case $mode in
root) echo "$root" ;;
ensure)
	make_root
	missing=
	for p in "$@"; do
		st=$(chroot "$root" dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
		[ "$st" = installed ] || missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		echo "# chroot: installing in $rel:$missing" >&2
		log=$MBR_CACHE/chroot/$rel-install.log
		# shellcheck disable=SC2086
		{ inside apt-get update && inside apt-get install -y -q $missing; } >"$log" 2>&1 || {
			tail -n 20 "$log" >&2
			exit 1
		}
	fi
	echo "$root"
	;;
run) inside "$@" ;;
kernel)
	# 7.x: linux-image-* is a metapackage (and wants an initramfs tool);
	# the image and modules are linux-binary-* and linux-modules-*.
	# Before, linux-headers-* pulls linux-image-*.
	krel=$1
	case $krel in *-arm64)
		arm64_kernel "$krel"
		exit 0
		;;
	esac
	pkgs=linux-headers-$krel
	if APT_CONFIG=$(sh "$here/archive.sh") apt-cache show "linux-binary-$krel" >/dev/null 2>&1; then
		pkgs="$pkgs linux-binary-$krel linux-modules-$krel"
	fi
	# shellcheck disable=SC2086
	sh "$here/chroot.sh" ensure "$rel" $pkgs
	;;
*) echo "usage: chroot.sh root|ensure|run RELEASE ..." >&2; exit 2 ;;
esac
