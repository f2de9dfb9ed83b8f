#!/bin/sh
# An apt configuration of the test harness's own, outside the host's,
# that reads Debian's other releases (trixie, trixie-security,
# trixie-backports, sid) for amd64 and arm64, and the host's own
# (bookworm, bookworm-security) for its arm64 kernel: to choose their kernels and
# to look packages up. It never installs on the host. Its lists are
# refreshed when older than a day. Prints the APT_CONFIG file to use:
#   APT_CONFIG=$(sh tests/archive.sh) apt-cache madison linux-headers-amd64
# The archive is a dated snapshot: sid's Release files may read as
# expired, so their dates are not checked.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib-host.sh"
d=$MBR_CACHE/apt
mirror=${MBR_MIRROR:-http://deb.debian.org/debian}
key=/usr/share/keyrings/debian-archive-keyring.gpg
mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/etc/preferences.d" "$d/etc/apt.conf.d"
touch "$d/status"
cat >"$d/etc/sources.list.new" <<EOS
deb [signed-by=$key] $mirror trixie main
deb [signed-by=$key] $mirror trixie-backports main
deb [signed-by=$key] $mirror sid main
deb [signed-by=$key] ${mirror%/debian}/debian-security trixie-security main
deb [signed-by=$key] $mirror bookworm main
deb [signed-by=$key] ${mirror%/debian}/debian-security bookworm-security main
EOS
cat >"$d/apt.conf.new" <<EOS
Dir::Etc::SourceList "$d/etc/sources.list";
Dir::Etc::SourceParts "/nonexistent";
Dir::Etc::Parts "$d/etc/apt.conf.d";
Acquire::Languages "none";
Acquire::IndexTargets::deb::DEP-11 { DefaultEnabled "false"; };
Dir::Etc::Preferences "$d/etc/preferences";
Dir::Etc::PreferencesParts "$d/etc/preferences.d";
Dir::State::Lists "$d/lists";
Dir::State::status "$d/status";
Dir::Cache "$d/cache";
Dir::Cache::pkgcache "pkgcache.bin";
Dir::Cache::srcpkgcache "srcpkgcache.bin";
APT::Architectures { "amd64"; "arm64"; };
Acquire::Check-Valid-Until "false";
EOS
stale=
for f in sources.list apt.conf; do
	p=$d/$f
	[ "$f" = sources.list ] && p=$d/etc/$f
	if ! cmp -s "$p.new" "$p"; then mv "$p.new" "$p"; stale=1; else rm -f "$p.new"; fi
done
stamp=$d/lists/.mbr-updated
if [ -n "$stale" ] || [ -z "$(find "$stamp" -mmin -1440 2>/dev/null)" ]; then
	APT_CONFIG=$d/apt.conf apt-get -q update >"$d/update.log" 2>&1 || {
		tail -n 5 "$d/update.log" >&2
		exit 1
	}
	touch "$stamp"
fi
echo "$d/apt.conf"
