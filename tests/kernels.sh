#!/bin/sh
# Print the test kernels, one "<series> <version> <flavour>" line each
# (kernel release = <version>-<flavour>): for 6.1 and 6.12, the newest
# version for which apt offers both linux-image-<ver>-<flavour>-unsigned
# and linux-headers-<ver>-<flavour>, for each flavour: amd64 (generic),
# cloud-amd64 (Debian's cloud images) and rt-amd64 (PREEMPT_RT).
# Chosen at run time, so a version that leaves the archive is never
# hard-coded.
#
#   kernels.sh            every flavour
#   kernels.sh amd64      only the generic kernels (and so on)
# MEMCG_BGRECLAIM_KERNELS="6.1.0-57 ..." overrides the versions.
set -eu
flavours=${1:-"amd64 cloud-amd64 rt-amd64"}

if [ -n "${MEMCG_BGRECLAIM_KERNELS:-}" ]; then
	for v in $MEMCG_BGRECLAIM_KERNELS; do
		for f in $flavours; do
			echo "$v $f" | sed 's/^\(6\.[0-9]*\)\([^ ]*\) /\1 \1\2 /'
		done
	done
	exit 0
fi

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
pick() {	# pick SERIES FLAVOUR
	apt-cache pkgnames linux-image-"$1". 2>/dev/null |
		sed -n "s/^linux-image-\($1\.[0-9][^ ]*\)-$2-unsigned\$/\1/p" |
		grep -v -e '-rt$' -e '-cloud$' | sort -u >"$tmp"
	best=$(apt-cache pkgnames linux-headers-"$1". 2>/dev/null |
		sed -n "s/^linux-headers-\($1\.[0-9][^ ]*\)-$2\$/\1/p" |
		grep -v -e '-rt$' -e '-cloud$' | sort -u | comm -12 "$tmp" - |
		sort -V | tail -n 1)
	[ -n "$best" ] || { echo "no $1 $2 kernel with image and headers in apt" >&2; return 1; }
	echo "$1 $best $2"
}

for f in $flavours; do
	pick 6.1 "$f"
	pick 6.12 "$f"
done
