# Shell helpers of the host-side test scripts.

# The kernel releases of the test matrix: mbr_test_krels [FLAVOURS],
# by default the generic (amd64) ones; "all" for every flavour.
mbr_test_krels() {
	case ${1:-amd64} in
	all) "$MBR_TOP/tests/kernels.sh" ;;
	*) "$MBR_TOP/tests/kernels.sh" "${1:-amd64}" ;;
	esac | awk '{ print $2 "-" $3 }'
}

# Build the module for one kernel in its own copy of the sources, so
# that builds for several kernels never share objects. Prints the path
# of the stripped .ko; the compiler output is in $dir/build.log.
# mbr_build_ko KREL [fi]: "fi" builds the fault-injection test variant.
# MBR_KDIR: the kernel build tree, when not /lib/modules/KREL/build.
mbr_build_ko() {
	krel=$1
	variant=${2:-}
	dir=$MBR_BUILD/ko${variant:+-$variant}-$krel
	rm -rf "$dir"
	mkdir -p "$dir"
	(cd "$MBR_TOP" && cp -r Kbuild Makefile VERSION module sysfs include "$dir/")
	make -C "${MBR_KDIR:-/lib/modules/$krel/build}" M="$dir" W=1 \
		MBR_FAULT_INJECT="$([ "$variant" = fi ] && echo 1)" \
		MBR_VERSION="$(cat "$MBR_TOP/VERSION")" modules >"$dir/build.log" 2>&1 || return 1
	strip --strip-debug -o "$dir/memcg_bgreclaim.stripped.ko" "$dir/memcg_bgreclaim.ko"
	echo "$dir/memcg_bgreclaim.stripped.ko"
}
