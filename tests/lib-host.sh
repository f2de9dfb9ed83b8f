# Shell helpers of the host-side test scripts.

# The kernel releases of the test matrix: mbr_test_krels [FLAVOURS
# [RELEASES]], by default the generic (amd64) ones of the host's own
# release (bookworm); "all" for every flavour; RELEASES as kernels.sh.
mbr_test_krels() {
	"$MBR_TOP/tests/kernels.sh" "${1:-amd64}" "${2:-bookworm}" | awk '{ print $2 "-" $3 }'
}

# The Debian release of a test kernel: bookworm (the host's), trixie,
# trixie-backports or sid. mbr_krel_release KREL
mbr_krel_release() {
	"$MBR_TOP/tests/kernels.sh" all | awk -v k="$1" '$2 "-" $3 == k { print $4 }'
}

# The chroot (tests/chroot.sh) a test kernel is built and booted from:
# trixie for trixie's and trixie-backports' kernels, sid for sid's;
# nothing for the host's own release. mbr_krel_chroot KREL
mbr_krel_chroot() {
	rel=$(mbr_krel_release "$1")
	case $rel in
	bookworm | "") ;;
	*) echo "${rel%-backports}" ;;
	esac
}

# The root a test kernel lives in: "" for the host's own release, else
# its release's chroot, where its headers, image and modules are
# installed on first use. mbr_kroot KREL
mbr_kroot() {
	c=$(mbr_krel_chroot "$1")
	[ -z "$c" ] || sh "$MBR_TOP/tests/chroot.sh" kernel "$c" "$1"
}

# The image of a test kernel: /boot/vmlinuz-KREL, or from 7.x on
# /usr/lib/modules/KREL/vmlinuz. mbr_kernel_image KREL
mbr_kernel_image() {
	root=$(mbr_kroot "$1")
	for p in "$root/boot/vmlinuz-$1" "$root/usr/lib/modules/$1/vmlinuz"; do
		[ -f "$p" ] && { echo "$p"; return 0; }
	done
	return 1
}

# Build the module for one kernel in its own copy of the sources, so
# that builds for several kernels never share objects. Prints the path
# of the stripped .ko; the compiler output is in $dir/build.log, and
# $dir/gcc the compiler's version. A kernel of another release is built
# in that release's chroot, with its gcc and kbuild, as DKMS would there.
# mbr_build_ko KREL [fi]: "fi" builds the fault-injection test variant.
# MBR_KDIR: the kernel build tree, when not /lib/modules/KREL/build.
mbr_build_ko() {
	krel=$1
	variant=${2:-}
	dir=$MBR_BUILD/ko${variant:+-$variant}-$krel
	rm -rf "$dir"
	mkdir -p "$dir"
	(cd "$MBR_TOP" && cp -r Kbuild Makefile VERSION module sysfs include "$dir/")
	set -- make -j"$(nproc)" W=1 MBR_FAULT_INJECT="$([ "$variant" = fi ] && echo 1)" \
		MBR_VERSION="$(cat "$MBR_TOP/VERSION")" modules
	rel=$(mbr_krel_chroot "$krel")
	if [ -z "${MBR_KDIR:-}" ] && [ -n "$rel" ]; then
		root=$(mbr_kroot "$krel") || return 1
		inner=/tmp/mbr-ko${variant:+-$variant}-$krel
		rm -rf "$root$inner"
		cp -r "$dir" "$root$inner"
		sh "$MBR_TOP/tests/chroot.sh" run "$rel" sh -c \
			'k=$1 d=$2; shift 2; gcc --version | head -n 1 >"$d/gcc"; "$@" -C "/lib/modules/$k/build" M="$d" >"$d/build.log" 2>&1' \
			sh "$krel" "$inner" "$@"
		rc=$?
		rm -rf "$dir"
		mv "$root$inner" "$dir"
		[ "$rc" = 0 ] || return 1
	else
		gcc --version | head -n 1 >"$dir/gcc"
		"$@" -C "${MBR_KDIR:-/lib/modules/$krel/build}" M="$dir" >"$dir/build.log" 2>&1 || return 1
	fi
	strip --strip-debug -o "$dir/memcg_bgreclaim.stripped.ko" "$dir/memcg_bgreclaim.ko"
	echo "$dir/memcg_bgreclaim.stripped.ko"
}

# The build tree of an entry point that honours MBR_BUILD (check.sh,
# vm/dev.sh): build/ unless set, made (SUBDIR in it if given) and
# exported with MBR_TOP for the scripts it runs. mbr_build_init [SUBDIR]
mbr_build_init() {
	MBR_BUILD=${MBR_BUILD:-$MBR_TOP/build}
	export MBR_TOP MBR_BUILD
	mkdir -p "$MBR_BUILD${1:+/$1}"
}

# Downloads, chroots and built trees that outlive a clone (CI runs on a
# fresh clone of this machine and finds them here).
MBR_CACHE=${MBR_CACHE:-/var/cache/memcg-bgreclaim-test}
export MBR_CACHE
