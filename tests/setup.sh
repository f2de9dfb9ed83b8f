#!/bin/sh
# Install, as root on Debian 12, every package the test harness needs and
# that is not installed yet: the QEMU/busybox tool set and, for each test
# kernel of tests/kernels.sh, its unsigned image and its headers.
set -eu
here=$(cd "$(dirname "$0")" && pwd)

want="qemu-system-x86 busybox-static kmod e2fsprogs dkms cpio gcc make libc6-dev xz-utils zstd perl linux-source-6.12"
for line in $("$here/kernels.sh" | awk '{print $2}'); do
	want="$want linux-image-$line-amd64-unsigned linux-headers-$line-amd64"
done
want="$want $*"

missing=
for p in $want; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "# setup: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q --no-install-recommends $missing >&2
