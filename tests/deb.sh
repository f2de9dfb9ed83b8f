#!/bin/sh
# The Debian package (dh-dkms): build it, and test it on this host.
#   deb.sh build   build memcg-bgreclaim-dkms_<ver>_amd64.deb in build/deb
#   deb.sh test    build, then as TAP: dpkg -i builds and installs the
#                  module with DKMS for every test kernel (dkms status),
#                  signed with DKMS's MOK key when that key exists; the
#                  installed .ko of the newest generic 6.12 is kept as
#                  build/deb/memcg_bgreclaim.ko (with its sha256) for a
#                  guest to boot; dpkg -P leaves nothing behind.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
out=${MBR_BUILD:-$top/build}/deb
ver=$(cat "$top/VERSION")
deb=$out/memcg-bgreclaim-dkms_${ver}_amd64.deb
name=memcg_bgreclaim

build() {
	rm -rf "$out"
	mkdir -p "$out/src"
	(cd "$top" && git ls-files 2>/dev/null || find . -type f ! -path './build/*' ! -path './.git/*') |
		grep -v '^build/' | (cd "$top" && cpio -pdm --quiet "$out/src")
	(cd "$out/src" && dpkg-buildpackage -us -uc -b >"$out/build.log" 2>&1)
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
ok "make deb builds $(basename "$deb")"
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
for krel in $(sh "$top/tests/kernels.sh" | awk '{ print $2 "-" $3 }'); do
	t "dkms status: installed for $krel" sh -c "dkms status -m $name -v $ver -k $krel | grep -q ': installed'"
	ko=$(ls /lib/modules/$krel/updates/dkms/$name.ko* 2>/dev/null | head -n 1)
	t "the .ko for $krel is in /lib/modules/$krel/updates/dkms" test -n "$ko"
done
krel=$(sh "$top/tests/kernels.sh" amd64 | awk '$1 == "6.12" { print $2 "-" $3 }')
ko=$(ls /lib/modules/$krel/updates/dkms/$name.ko* 2>/dev/null | head -n 1)
if [ -f /var/lib/dkms/mok.key ] && [ -n "$ko" ]; then
	signer=$(modinfo -F signer "$ko" 2>/dev/null)
	cn=$(openssl x509 -inform DER -in /var/lib/dkms/mok.pub -noout -subject 2>/dev/null | sed 's/.*CN *= *//')
	t "DKMS signed the module with its MOK key ($signer)" test -n "$signer" -a "$signer" = "$cn"
fi
rm -f "$out/$name.ko" "$out/$name.ko.sha256"
case $ko in
*.ko) cp "$ko" "$out/$name.ko" ;;
*.ko.xz) xz -dc "$ko" >"$out/$name.ko" ;;
*.ko.zst) zstd -qdc "$ko" >"$out/$name.ko" ;;
esac
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
