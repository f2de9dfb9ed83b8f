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
	fl=all
	[ "$(mbr_krel_arch "$1")" = arm64 ] && fl="arm64 cloud-arm64"
	"$MBR_TOP/tests/kernels.sh" "$fl" | awk -v k="$1" '$2 "-" $3 == k { print $4 }'
}

# The architecture of a test kernel: arm64 or amd64. mbr_krel_arch KREL
mbr_krel_arch() {
	case $1 in
	*-arm64) echo arm64 ;;
	*) echo amd64 ;;
	esac
}

# The chroot (tests/chroot.sh) a test kernel is built and booted from:
# trixie for trixie's and trixie-backports' kernels, sid for sid's;
# nothing for the host's own release's amd64 kernels, a bookworm chroot
# for its arm64 one (its cross toolchain stays off the host). mbr_krel_chroot KREL
mbr_krel_chroot() {
	rel=$(mbr_krel_release "$1")
	case $rel in
	"") ;;
	bookworm) [ "$(mbr_krel_arch "$1")" = amd64 ] || echo bookworm ;;
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
	# arm64: cross-built, with the gcc its headers' .kernelvariables name
	# (which set ARCH and CROSS_COMPILE themselves from 6.12 on).
	cross=
	if [ "$(mbr_krel_arch "$krel")" = arm64 ]; then
		cross=aarch64-linux-gnu-
		set -- "$@" ARCH=arm64 CROSS_COMPILE=$cross
	fi
	rel=$(mbr_krel_chroot "$krel")
	if [ -z "${MBR_KDIR:-}" ] && [ -n "$rel" ]; then
		root=$(mbr_kroot "$krel") || return 1
		# Its own directory: two clones may build the same kernel at
		# once. Those of builds cut short go after a day.
		find "$root/tmp" -maxdepth 1 -name 'mbr-ko*' -mmin +1440 -exec rm -rf {} + 2>/dev/null
		inner=$(mktemp -d "$root/tmp/mbr-ko${variant:+-$variant}-$krel.XXXXXX") || return 1
		chmod 755 "$inner"
		inner=${inner#"$root"}
		cp -r "$dir/." "$root$inner" || { rm -rf "${root:?}$inner"; return 1; }
		sh "$MBR_TOP/tests/chroot.sh" run "$rel" sh -c \
			'k=$1 d=$2 cc=$3; shift 3; $cc --version | head -n 1 >"$d/gcc"; "$@" -C "/lib/modules/$k/build" M="$d" >"$d/build.log" 2>&1' \
			sh "$krel" "$inner" "$(mbr_kernel_cc "$root" "$krel" "$cross")" "$@"
		rc=$?
		rm -rf "$dir"
		mv "$root$inner" "$dir"
		[ "$rc" = 0 ] || return 1
	else
		gcc --version | head -n 1 >"$dir/gcc"
		"$@" -C "${MBR_KDIR:-/lib/modules/$krel/build}" M="$dir" >"$dir/build.log" 2>&1 || return 1
	fi
	"${cross}strip" --strip-debug -o "$dir/memcg_bgreclaim.stripped.ko" "$dir/memcg_bgreclaim.ko"
	echo "$dir/memcg_bgreclaim.stripped.ko"
}

# The compiler a kernel's build uses, as its headers' .kernelvariables
# names it (gcc-14, aarch64-linux-gnu-gcc-14), else CROSSgcc. ROOT:
# the root it is installed in (mbr_kroot). mbr_kernel_cc ROOT KREL [CROSS]
mbr_kernel_cc() {
	kv=$1/usr/src/linux-headers-$2/.kernelvariables
	v=$(sed -n 's/^ *CC *=.*\$(CROSS_COMPILE)gcc\(-[0-9]*\).*/\1/p' "$kv" 2>/dev/null | head -n 1)
	echo "${3:-}gcc$v"
}

# A kernel module written to OUT, decompressed (.ko.xz, .ko.zst: busybox
# insmod and readelf take neither). mbr_unpack_ko KO OUT
mbr_unpack_ko() {
	case $1 in
	*.xz) xz -dc "$1" ;;
	*.zst) zstd -qdc "$1" ;;
	*) cat "$1" ;;
	esac >"$2"
}

# Where mbr_build_helpers puts ARCH's helpers. mbr_helpers_dir ARCH
mbr_helpers_dir() {
	case $1 in
	arm64) echo "$MBR_BUILD/helpers-arm64" ;;
	*) echo "$MBR_BUILD/helpers" ;;
	esac
}

# The static guest helpers (busybox has no errno-exact writer) and the
# CLI, built for ARCH (amd64, or arm64 with Debian's cross gcc) into
# $MBR_BUILD/helpers or helpers-arm64; prints the directory, and on a
# failure the name of the helper that did not build, on stderr.
# mbr_build_helpers ARCH
mbr_build_helpers() {
	d=$(mbr_helpers_dir "$1") cc=gcc
	[ "$1" = arm64 ] && cc=aarch64-linux-gnu-gcc
	command -v $cc >/dev/null || sh "$MBR_TOP/tests/setup.sh" >&2
	mkdir -p "$d"
	$cc -static -O2 -Wall -Wextra -Werror -I"$MBR_TOP/include" -o "$d/memcg-bgreclaim" \
		"$MBR_TOP/tools/memcg-bgreclaim.c" || { echo "memcg-bgreclaim" >&2; return 1; }
	for c in "$MBR_TOP"/tests/helpers/*.c; do
		$cc -static -O2 -Wall -Werror -o "$d/$(basename "$c" .c)" "$c" ||
			{ basename "$c" >&2; return 1; }
	done
	echo "$d"
}

# The busybox a guest of ARCH runs: the host's for amd64, Debian's
# busybox-static for arm64 (downloaded once). mbr_busybox ARCH
mbr_busybox() {
	[ "$1" = arm64 ] || { echo /bin/busybox; return 0; }
	bb=$MBR_CACHE/arm64/busybox
	if [ ! -x "$bb" ]; then
		t=$(mktemp -d)
		(cd "$t" && APT_CONFIG=$(sh "$MBR_TOP/tests/archive.sh") apt-get -q -o APT::Sandbox::User=root download busybox-static:arm64 >/dev/null &&
			dpkg-deb -x busybox-static_*_arm64.deb x) || { rm -rf "$t"; return 1; }
		mkdir -p "$MBR_CACHE/arm64"
		cp "$t/x/bin/busybox" "$bb.new.$$" 2>/dev/null || cp "$t/x/usr/bin/busybox" "$bb.new.$$"
		mv "$bb.new.$$" "$bb"	# two jobs may fetch it at once
		rm -rf "$t"
	fi
	echo "$bb"
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
