#!/bin/sh
# Print the test kernels, one "<series> <version> <flavour> <release>"
# line each (kernel release = <version>-<flavour>), chosen at run time so
# that a version that leaves the archive is never hard-coded:
#   bookworm          6.1 and 6.12 (+deb12), the host's own release: the
#                     newest version with both linux-image-*-unsigned and
#                     linux-headers-* in the host's apt
#   trixie            the newest 6.12 of trixie and trixie-security
#   trixie-backports  the kernel of its linux-headers-<flavour>
#   sid               likewise (sid's newest)
# and each in the flavours amd64 (generic), cloud-amd64 (Debian's cloud
# images) and rt-amd64 (PREEMPT_RT). The flavours arm64 and cloud-arm64
# are asked for by name ("all" is amd64's): bookworm's 6.1, trixie's
# and later releases' arm64 kernels, cross-built in a chroot of their
# release and booted under qemu-system-aarch64. The other releases are read
# through tests/archive.sh's apt configuration and built and booted
# from their chroots (tests/chroot.sh).
#
#   kernels.sh [FLAVOURS [RELEASES]]   e.g. kernels.sh amd64 "trixie sid"
# MEMCG_BGRECLAIM_KERNELS="6.1.0-57 ..." overrides bookworm's versions.
# The answer is kept for an hour ($MBR_CACHE/kernels-*.txt): one make
# check asks many times.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib-host.sh"
flavours=${1:-"amd64 cloud-amd64 rt-amd64"}
releases=${2:-"bookworm trixie trixie-backports sid"}
[ "$flavours" = all ] && flavours="amd64 cloud-amd64 rt-amd64"
memo=$MBR_CACHE/kernels-$(echo "$flavours $releases ${MEMCG_BGRECLAIM_KERNELS:-}" | cksum | cut -d' ' -f1).txt
if [ -n "$(find "$memo" -mmin -60 2>/dev/null)" ]; then
	cat "$memo"
	exit 0
fi
mkdir -p "$MBR_CACHE"

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
series() { echo "$1" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/'; }

# bookworm SERIES FLAVOUR
bookworm() {
	if [ -n "${MEMCG_BGRECLAIM_KERNELS:-}" ]; then
		for v in $MEMCG_BGRECLAIM_KERNELS; do
			[ "$(series "$v")" = "$1" ] && echo "$1 $v $2 bookworm"
		done
		return 0
	fi
	apt-cache pkgnames linux-image-"$1". 2>/dev/null |
		sed -n "s/^linux-image-\($1\.[0-9][^ ]*\)-$2-unsigned\$/\1/p" |
		grep -v -e '-rt$' -e '-cloud$' | sort -u >"$tmp"
	best=$(apt-cache pkgnames linux-headers-"$1". 2>/dev/null |
		sed -n "s/^linux-headers-\($1\.[0-9][^ ]*\)-$2\$/\1/p" |
		grep -v -e '-rt$' -e '-cloud$' | sort -u | comm -12 "$tmp" - |
		sort -V | tail -n 1)
	[ -n "$best" ] || { echo "no $1 $2 kernel with image and headers in apt" >&2; return 1; }
	echo "$1 $best $2 bookworm"
}

# other RELEASE FLAVOUR: the kernel that linux-headers-FLAVOUR of
# RELEASE depends on (trixie: the newest of trixie and trixie-security).
other() {
	case $1 in
	trixie) suites="trixie trixie-security" ;;
	bookworm) suites="bookworm bookworm-security" ;;
	*) suites=$1 ;;
	esac
	ver=$(for s in $suites; do
		APT_CONFIG=$conf apt-cache madison "linux-headers-$2" |
			awk -v s="$s/main" -v a="${2##*-}" '$6 == s && $7 == a { print $3 }'
	done | sort -V | tail -n 1)
	krel=$( [ -z "$ver" ] || APT_CONFIG=$conf apt-cache show "linux-headers-$2=$ver" |
		sed -n "s/^Depends:.*linux-headers-\([0-9][^ ,]*\)-$2\( \|,\|\$\).*/\1/p" | head -n 1)
	[ -n "$krel" ] || { echo "no $2 kernel in $1" >&2; return 1; }
	echo "$(series "$krel") $krel $2 $1"
}

conf=
for r in $releases; do
	for f in $flavours; do
		case $r in
		bookworm)
			case $f in
			arm64 | cloud-arm64)
				[ -n "$conf" ] || conf=$(sh "$here/archive.sh")
				other bookworm "$f"
				continue
				;;
			esac
			bookworm 6.1 "$f"
			bookworm 6.12 "$f"
			;;
		*)
			[ -n "$conf" ] || conf=$(sh "$here/archive.sh")
			other "$r" "$f"
			;;
		esac
	done
done >"$memo.new.$$"
# Renamed whole: a concurrent caller reads the old list or the new one.
mv "$memo.new.$$" "$memo"
cat "$memo"
