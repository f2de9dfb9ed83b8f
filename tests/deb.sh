#!/bin/sh
# The Debian package (dh-dkms): build it, and test it on this host.
#   deb.sh build   build memcg-bgreclaim-dkms_<ver>_amd64.deb in build/deb,
#                  and the _arm64.deb beside it (cross-built)
#   deb.sh test    build, then as TAP: dpkg -i builds and installs the
#                  module with DKMS for every test kernel (dkms status),
#                  signed with DKMS's MOK key when that key exists: on
#                  this host for its own release's kernels, and in each
#                  other release's chroot (tests/chroot.sh) for that
#                  release's, as a user of that release installs it; the
#                  installed .ko of MBR_DEB_KREL (default: bookworm's
#                  generic 6.12) is kept as build/deb/memcg_bgreclaim.ko
#                  (with its sha256) for a guest to boot; dpkg -P leaves
#                  nothing behind, on the host and in every chroot.
#                  MBR_DEB_KRELS: the kernels to check (default: all of
#                  tests/kernels.sh).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
MBR_TOP=$top
. "$top/tests/lib-host.sh"
out=${MBR_BUILD:-$top/build}/deb
ver=$(cat "$top/VERSION")
deb=$out/memcg-bgreclaim-dkms_${ver}_amd64.deb
deb_arm64=$out/memcg-bgreclaim-dkms_${ver}_arm64.deb
name=memcg_bgreclaim

build() {
	# The package's Build-Depends, and what copies the tree.
	sh "$top/tests/setup.sh" only debhelper dh-dkms dpkg-dev fakeroot \
		gcc libc6-dev make cpio git gcc-aarch64-linux-gnu \
		libc6-dev-arm64-cross binutils-aarch64-linux-gnu || return 1
	rm -rf "$out"
	mkdir -p "$out/src"
	(cd "$top" && git ls-files 2>/dev/null || find . -type f ! -path './build/*' ! -path './.git/*') |
		grep -v '^build/' | (cd "$top" && cpio -pdm --quiet "$out/src")
	(cd "$out/src" && dpkg-buildpackage -us -uc -b >"$out/build.log" 2>&1) || return 1
	# arm64, with Debian's cross gcc: -d, its libc6-dev is the cross
	# package, libc6-dev-arm64-cross, not libc6-dev:arm64.
	(cd "$out/src" && dpkg-buildpackage -us -uc -b -aarm64 -d >>"$out/build.log" 2>&1)
}

# machine KO: the ELF machine of a module (AArch64, Advanced Micro
# Devices X86-64).
machine() {
	mbr_unpack_ko "$1" "$out/machine.ko"
	readelf -h "$out/machine.ko" | sed -n 's/^ *Machine: *//p'
}

case ${1:-build} in
build)
	build || { tail -n 30 "$out/build.log"; exit 1; }
	echo "$deb"
	exit 0
	;;
test) ;;
*) echo "usage: deb.sh build|test" >&2; exit 2 ;;
esac

ok() { echo "ok - deb: $*"; }
nok() { echo "not ok - deb: $*"; }
t() {	# t DESC CMD...: one assertion
	d=$1
	shift
	if "$@" >/dev/null 2>&1; then ok "$d"; else nok "$d"; fi
}

dpkg -P memcg-bgreclaim-dkms >/dev/null 2>&1
if ! build; then
	nok "make deb builds the package"
	tail -n 20 "$out/build.log" | sed 's/^/#   /'
	exit 0
fi
ok "make deb builds $(basename "$deb") and $(basename "$deb_arm64")"
rm -rf "$out/x-arm64" "$out/x-amd64"
dpkg-deb -x "$deb_arm64" "$out/x-arm64"
dpkg-deb -x "$deb" "$out/x-amd64"
t "the arm64 package's CLI is an aarch64 executable" \
	sh -c "readelf -h '$out/x-arm64/usr/sbin/memcg-bgreclaim' | grep -q 'Machine: *AArch64'"
t "the arm64 package holds the same module sources" \
	diff -r "$out/x-arm64/usr/src/$name-$ver" "$out/x-amd64/usr/src/$name-$ver"
t "dkms.conf's version is VERSION ($ver)" grep -qx "PACKAGE_VERSION=\"$ver\"" "$top/dkms.conf"
t "it holds the sources, the CLI, the unit, modules-load.d, the config, the man page" \
	sh -c "dpkg -c '$deb' | grep -q ' ./usr/src/$name-$ver/dkms.conf' &&
		dpkg -c '$deb' | grep -q ' ./usr/sbin/memcg-bgreclaim' &&
		dpkg -c '$deb' | grep -q 'memcg-bgreclaim.service' &&
		dpkg -c '$deb' | grep -q ' ./usr/lib/modules-load.d/memcg-bgreclaim.conf' &&
		dpkg -c '$deb' | grep -q ' ./etc/memcg-bgreclaim.conf' &&
		dpkg -c '$deb' | grep -q 'memcg-bgreclaim.8'"
t "the config is a conffile" sh -c "dpkg-deb -e '$deb' '$out/ctl' && grep -qx /etc/memcg-bgreclaim.conf '$out/ctl/conffiles'"

t0=$(date +%s)
if dpkg -i "$deb" >"$out/install.log" 2>&1; then
	ok "dpkg -i (DKMS builds took $(($(date +%s) - t0)) s)"
else
	nok "dpkg -i"
	tail -n 20 "$out/install.log" | sed 's/^/#   /'
fi
kernels=$(sh "$top/tests/kernels.sh" all)
krels=${MBR_DEB_KRELS:-$(echo "$kernels" | awk '{ print $2 "-" $3 }')}
for krel in $krels; do
	[ -z "$(mbr_krel_chroot "$krel")" ] || continue
	t "dkms status: installed for $krel" sh -c "dkms status -m $name -v $ver -k $krel | grep -q ': installed'"
	ko=$(ls /lib/modules/$krel/updates/dkms/$name.ko* 2>/dev/null | head -n 1)
	t "the .ko for $krel is in /lib/modules/$krel/updates/dkms" test -n "$ko"
done
keep=${MBR_DEB_KREL:-$(echo "$kernels" | awk '$1 == "6.12" && $3 == "amd64" && $4 == "bookworm" { print $2 "-" $3 }')}
kroot=
c=$(mbr_krel_chroot "$keep")
[ -z "$c" ] || kroot=$(sh "$top/tests/chroot.sh" root "$c")

# The other releases: the same package, installed in each one's chroot
# (its own dkms, gcc and kbuild), for the kernels of that release.
chroot_rels=$(for k in $krels; do mbr_krel_chroot "$k"; done | sort -u)
for rel in $chroot_rels; do
	root=$(sh "$top/tests/chroot.sh" root "$rel")
	for k in $krels; do
		[ "$(mbr_krel_chroot "$k")" != "$rel" ] || sh "$top/tests/chroot.sh" kernel "$rel" "$k" >/dev/null
	done
	sh "$top/tests/chroot.sh" run "$rel" dpkg -P memcg-bgreclaim-dkms >/dev/null 2>&1
	# A chroot of arm64 kernels only (bookworm's): the arm64 package.
	pkg=$deb
	set --
	if [ -z "$(for k in $krels; do [ "$(mbr_krel_chroot "$k")" = "$rel" ] &&
		[ "$(mbr_krel_arch "$k")" = amd64 ] && echo "$k"; done)" ]; then
		pkg=$deb_arm64
		sh "$top/tests/chroot.sh" run "$rel" dpkg --add-architecture arm64
		set -- env ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
	fi
	cp "$pkg" "$root/tmp/$(basename "$pkg")"
	t0=$(date +%s)
	if sh "$top/tests/chroot.sh" run "$rel" "$@" dpkg -i "/tmp/$(basename "$pkg")" >"$out/install-$rel.log" 2>&1; then
		ok "[$rel] dpkg -i $(basename "$pkg") in a $rel chroot (DKMS builds took $(($(date +%s) - t0)) s)"
	else
		nok "[$rel] dpkg -i $(basename "$pkg") in a $rel chroot"
		tail -n 20 "$out/install-$rel.log" | sed 's/^/#   /'
	fi
	rm -f "$root/tmp/$(basename "$pkg")"
	for k in $krels; do
		[ "$(mbr_krel_chroot "$k")" = "$rel" ] || continue
		t "[$rel] dkms status: installed for $k" sh -c "chroot '$root' dkms status -m $name -v $ver -k $k | grep -q ': installed'"
		ko=$(ls "$root/lib/modules/$k/updates/dkms/$name.ko"* 2>/dev/null | head -n 1)
		t "[$rel] the .ko for $k is in /lib/modules/$k/updates/dkms" test -n "$ko"
		if [ "$(mbr_krel_arch "$k")" = arm64 ] && [ -n "$ko" ]; then
			m=$(machine "$ko")
			t "[$rel] ... and is an AArch64 object ($m)" test "$m" = AArch64
		fi
	done
done

ko=$(ls "$kroot/lib/modules/$keep/updates/dkms/$name.ko"* 2>/dev/null | head -n 1)
if [ -f "$kroot/var/lib/dkms/mok.key" ] && [ -n "$ko" ]; then
	signer=$(modinfo -F signer "$ko" 2>/dev/null)
	cn=$(openssl x509 -inform DER -in "$kroot/var/lib/dkms/mok.pub" -noout -subject 2>/dev/null | sed 's/.*CN *= *//')
	t "DKMS signed the module for $keep with its MOK key ($signer)" test -n "$signer" -a "$signer" = "$cn"
fi
rm -f "$out/$name.ko" "$out/$name.ko.sha256"
[ -z "$ko" ] || mbr_unpack_ko "$ko" "$out/$name.ko"
[ -f "$out/$name.ko" ] && sha256sum "$out/$name.ko" | cut -d' ' -f1 >"$out/$name.ko.sha256"
t "the CLI is installed and runs" sh -c "/usr/sbin/memcg-bgreclaim --help | grep -q '^usage:'"
t "the unit is installed" test -f /lib/systemd/system/memcg-bgreclaim.service
if command -v systemd-analyze >/dev/null; then
	msg=$(systemd-analyze verify /lib/systemd/system/memcg-bgreclaim.service 2>&1)
	t "systemd-analyze verify accepts the unit${msg:+ ($msg)}" test -z "$msg"
fi
t "the unit applies the config after modules-load and before containerd and kubelet" \
	sh -c "grep -qx 'After=systemd-modules-load.service' /lib/systemd/system/memcg-bgreclaim.service &&
		grep -q '^Before=containerd.service kubelet.service' /lib/systemd/system/memcg-bgreclaim.service &&
		grep -qx 'ExecStart=/usr/sbin/memcg-bgreclaim apply /etc/memcg-bgreclaim.conf' /lib/systemd/system/memcg-bgreclaim.service"
t "the installed config applies cleanly as shipped (the CLI parses it)" \
	sh -c "/usr/sbin/memcg-bgreclaim apply /etc/memcg-bgreclaim.conf 2>&1 | grep -q 'module is not loaded'"

dpkg -P memcg-bgreclaim-dkms >"$out/purge.log" 2>&1 && ok "dpkg -P" || nok "dpkg -P"
left=$( (ls -d /usr/src/$name-* /var/lib/dkms/$name /usr/sbin/memcg-bgreclaim \
	/etc/memcg-bgreclaim.conf /lib/systemd/system/memcg-bgreclaim.service \
	/usr/lib/modules-load.d/memcg-bgreclaim.conf \
	/etc/systemd/system/*/memcg-bgreclaim.service /usr/share/man/man8/memcg-bgreclaim.8* \
	/lib/modules/*/updates/dkms/$name.ko* 2>/dev/null) | tr '\n' ' ')
t "dpkg -P leaves nothing (${left:-none})" test -z "$left"
t "and no dkms entry" sh -c "! dkms status -m $name | grep -q ."
for rel in $chroot_rels; do
	root=$(sh "$top/tests/chroot.sh" root "$rel")
	sh "$top/tests/chroot.sh" run "$rel" dpkg -P memcg-bgreclaim-dkms >"$out/purge-$rel.log" 2>&1 &&
		ok "[$rel] dpkg -P" || nok "[$rel] dpkg -P"
	left=$( (ls -d "$root/usr/src/$name-"* "$root/var/lib/dkms/$name" "$root/usr/sbin/memcg-bgreclaim" \
		"$root"/lib/modules/*/updates/dkms/$name.ko* 2>/dev/null) | sed "s|^$root||" | tr '\n' ' ')
	t "[$rel] dpkg -P leaves nothing (${left:-none})" test -z "$left"
done
