#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build the kernel's own memory cgroup selftests (test_memcontrol and
# test_kmem of tools/testing/selftests/cgroup) for one kernel series,
# from Debian's linux-source tarball of that series, so that each kernel
# is tested by the selftests of its own source. Static: the guest is a
# busybox initramfs without a C library.
#
# usage: build.sh SERIES|KREL [OUTDIR]
#   SERIES 6.1 or 6.12 (or a kernel release, 6.1.0-57-amd64, whose first
#   two numbers name it; a release ending in -arm64 cross-builds them); OUTDIR defaults to $MBR_BUILD/selftests-SERIES
#   (MBR_BUILD: build/ of the tree), with -RELEASE for another release's.
# env: MBR_KROOT, the root of the kernel's release (its chroot, where
#   linux-source-SERIES is installed on first use); the host by default.
# Prints OUTDIR/bin, which holds the two binaries and VERSION (the
# source they were built from); nothing on failure (see OUTDIR/build.log).
# The result is cached: a second call with the same tarball and the same
# build.sh only prints the path.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
series=$(echo "$1" | sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p')
[ -n "$series" ] || { echo "build.sh: no kernel series in '$1'" >&2; exit 2; }
kroot=${MBR_KROOT:-}
rel=${kroot:+$(basename "$kroot")}
# An arm64 kernel's: cross-built with Debian's aarch64 gcc (and the uapi
# headers of linux-libc-dev-arm64-cross).
cc=gcc arch=
case $1 in *-arm64) cc=aarch64-linux-gnu-gcc arch=arm64 ;; esac
out=${2:-${MBR_BUILD:-$top/build}/selftests-$series${rel:+-$rel}${arch:+-$arch}}
tarball=$kroot/usr/src/linux-source-$series.tar.xz
if [ ! -f "$tarball" ] && [ -n "$rel" ]; then
	sh "$top/tests/chroot.sh" ensure "$rel" "linux-source-$series" >/dev/null
fi
[ -f "$tarball" ] || {
	echo "build.sh: $tarball missing (apt-get install linux-source-$series)" >&2
	exit 1
}
progs="test_memcontrol test_kmem"

# The cache key: the tarball (a new Debian upload changes its size or
# mtime) and the recipe (this script and the files it uses).
key="$(stat -c '%s %Y' "$tarball") $(cat "$0" "$(dirname "$0")/instrument.h" \
	"$(dirname "$0")/asserts.awk" | cksum)"
if [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$key" ]; then
	echo "$out/bin"
	exit 0
fi
rm -rf "$out"
mkdir -p "$out/src" "$out/bin"
log=$out/build.log
st=tools/testing/selftests
# Only what the two programs include: the cgroup directory, kselftest.h
# and clone3_selftests.h (cgroup_util.c); the top Makefile names the
# exact version. One pass over the tarball (about 30 s of xz).
if ! tar -xJf "$tarball" -C "$out/src" --strip-components=1 --wildcards \
	"linux-source-$series/Makefile" \
	"linux-source-$series/$st/cgroup/*" \
	"linux-source-$series/$st/kselftest.h" \
	"linux-source-$series/$st/clone3/clone3_selftests.h" >"$log" 2>&1; then
	echo "build.sh: cannot extract the selftests from $tarball" >&2
	exit 1
fi
# Each goto of the two tests reports where it was taken
# (instrument.h); LINE<TAB>condition lines of every goto go to
# bin/PROG.asserts, so that the guest can name a failed assertion. The
# originals stay beside as PROG.c.orig.
here=$(cd "$(dirname "$0")" && pwd)
for p in $progs; do
	c=$out/src/$st/cgroup/$p.c
	cp "$c" "$c.orig"
	sed -i 's/^\([ \t]*\)goto \([a-z_0-9]*\);[ \t]*$/\1{ MBR_AT(); goto \2; }/' "$c"
	awk -f "$here/asserts.awk" "$c.orig" >"$out/bin/$p.asserts"
done
# As the selftests' Makefile builds them: CFLAGS -Wall -pthread and no
# -O (at -O2 gcc drops alloc_anon()'s malloc, page touching and free as
# dead code, and the OOM tests never reach their limit), cgroup_util.c
# beside each test; but linked statically, and against the host's uapi
# headers (linux-libc-dev), not a "make headers_install" of the tarball,
# which would need the whole tree.
for p in $progs; do
	# cgroup_util.c is in lib/ in 7.x (6.12: beside the tests), its header in
	# lib/include; kselftest.h is one directory up.
	util=cgroup_util.c
	[ -f "$out/src/$st/cgroup/$util" ] || util=lib/cgroup_util.c
	if ! (cd "$out/src/$st/cgroup" &&
		$cc -static -Wall -pthread -include "$here/instrument.h" \
			-I. -Ilib/include -I.. \
			-o "$out/bin/$p" "$p.c" "$util") >>"$log" 2>&1; then
		echo "build.sh: $p does not build (see $log)" >&2
		exit 1
	fi
done
v=$(sed -n 's/^VERSION = //p; s/^PATCHLEVEL = //p; s/^SUBLEVEL = //p' "$out/src/Makefile" |
	tr '\n' . | sed 's/\.$//')
echo "linux-source-$series $(dpkg-query --admindir="$kroot/var/lib/dpkg" -W -f '${Version}' "linux-source-$series" 2>/dev/null) (Linux $v)" \
	>"$out/bin/VERSION"
echo "$key" >"$out/stamp"
echo "$out/bin"
