#!/bin/sh
# Print the test kernels, one "<series> <version>" per line: the newest
# Debian 6.1 and 6.12 flavour-amd64 kernels for which apt offers both
# linux-image-<ver>-amd64-unsigned and linux-headers-<ver>-amd64.
# Chosen at run time, so a version that leaves the archive is never hard-coded.
# MEMCG_BGRECLAIM_KERNELS="6.1.0-57 ..." overrides the choice.
set -eu

if [ -n "${MEMCG_BGRECLAIM_KERNELS:-}" ]; then
	for v in $MEMCG_BGRECLAIM_KERNELS; do
		echo "${v%.*}" "$v" | sed 's/^\(6\.[0-9]*\)[^ ]* /\1 /'
	done
	exit 0
fi

pick() {
	series=$1
	imgs=$(apt-cache pkgnames linux-image-"$series". 2>/dev/null |
		sed -n "s/^linux-image-\($series\.[0-9][^ ]*\)-amd64-unsigned\$/\1/p")
	hdrs=$(apt-cache pkgnames linux-headers-"$series". 2>/dev/null |
		sed -n "s/^linux-headers-\($series\.[0-9][^ ]*\)-amd64\$/\1/p")
	best=$(printf '%s\n' $imgs | sort -u >/tmp/.mbr_img.$$
	       printf '%s\n' $hdrs | sort -u | comm -12 /tmp/.mbr_img.$$ - |
	       grep -v -e '-rt$' -e '-cloud$' | sort -V | tail -n 1)
	rm -f /tmp/.mbr_img.$$
	[ -n "$best" ] || { echo "no $series kernel with image and headers in apt" >&2; return 1; }
	echo "$series $best"
}

pick 6.1
pick 6.12
