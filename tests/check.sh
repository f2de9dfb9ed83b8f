#!/bin/sh
# make check: everything, as TAP, ending with the plain line
# "N passed, N failed". Exit status 1 on any failure.
#
#   The test kernels (tests/kernels.sh): bookworm's 6.1 and 6.12,
#   trixie's 6.12, trixie-backports' and sid's 7.x, each generic, cloud
#   and PREEMPT_RT. The "full" kernels are generic 6.1, trixie's 6.12 and
#   the newest 7.x; the "smoke" ones the other generic kernels, the rt
#   flavour of the newest 7.x and the rt flavours of bookworm (the cloud
#   flavours: DKMS builds in the package test, guests in check-matrix).
#
#   host: unit tests of the pure logic, the guest helpers, and for every
#   kernel of make check a W=1 build with its own release's gcc (in that
#   release's chroot) and the IBT structure check of the .ko
#   (tests/static_calls.py); the Debian package (tests/deb.sh: dpkg -i
#   builds the module with DKMS for every kernel, on the host and in
#   each release's chroot; dpkg -P leaves nothing); checkpatch
#   guests, MBR_JOBS (2) at a time, longest first:
#     full kernels: every case on 2 CPUs; the worker count and CPU
#       hotplug on 4 CPUs (on 1 and 9 CPUs too in check-matrix); the
#       kernel's own memcg selftests of each (test_memcontrol, test_kmem),
#       stock and with the module
#     generic 6.1 with the cgroup v1 memory controller: the mechanism cases
#     smoke kernels: a smoke set (tests/cases/smoke.list)
#     arm64 (qemu-system-aarch64 -M virt): the generic arm64 kernels of
#       bookworm's 6.1, trixie's 6.12 and the newest 7.x, cross-built with their
#       release's aarch64 gcc: tests/cases/smoke-arm64.list (every case,
#       cloud-arm64 and sid's too, in check-matrix)
#     the IBT-enforcing emulator (bochs, tests/ibt/run.sh) on the full
#       6.12 (stock 7.x panics at boot in Bochs 2.7, see below)
#     the .ko DKMS installed from the package, on the newest 7.x
#
# MBR_CASES="a b" limits the guest cases to those (and skips the guests
# that have none of them).
# MBR_MATRIX=1 (make check-matrix): every case on every kernel.
# MBR_KRELS="KREL ..." limits the kernels to those (not with MBR_DEBUG).
# MBR_DEBUG=1 (make check-debug): the same cases on the debug kernel of
# tests/debug/kernel.sh (KASAN, lockdep, kmemleak...), built from
# linux-source-6.12 once and cached; no DKMS build, no other kernel.
set -u
MBR_TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$MBR_TOP/tests/lib-host.sh"
mbr_build_init
suffix=${MBR_DEBUG:+-debug}${MBR_MATRIX:+-matrix}
TAP=$MBR_BUILD/check$suffix.tap
JOBS=$MBR_BUILD/jobs$suffix
: >"$TAP"
rm -rf "$JOBS"
mkdir -p "$JOBS"
stamp=$JOBS/start	# the consoles kept below are this run's
touch "$stamp"
start=$(date +%s)

# Number the TAP lines of a producer as they come, and keep them.
emit() {
	n=$(grep -c '^\(not \)\?ok ' "$TAP")	# once a call, not once a line
	while IFS= read -r line; do
		case $line in
		"ok "* | "not ok "*)
			n=$((n + 1))
			desc=${line#ok }
			case $line in "not ok "*) desc=${line#not ok }; pre="not ok" ;; *) pre=ok ;; esac
			desc=$(echo "$desc" | sed 's/^[0-9]* *//')
			echo "$pre $n $desc" | tee -a "$TAP"
			;;
		*) echo "$line" ;;
		esac
	done
}

echo "TAP version 13"
sh "$MBR_TOP/tests/setup.sh" || { echo "not ok - setup: installing the test packages" | emit; }

sh "$MBR_TOP/tests/unit.sh" | emit

# Static helpers for the guest (busybox has no errno-exact writer), and
# the command line (make tools), which the guests run too: for amd64,
# and for arm64 with Debian's cross gcc.
for arch in amd64 arm64; do
	if bad=$(mbr_build_helpers $arch 2>&1 >/dev/null); then
		echo "ok - tools: memcg-bgreclaim and the guest helpers build for $arch, statically linked"
	else
		echo "not ok - tools: memcg-bgreclaim and the guest helpers build for $arch, statically linked ($(echo $bad | tail -c 200))"
	fi
done | emit

# wanted CASE: the suite runs CASE (every case unless MBR_CASES names some).
wanted() { [ -z "${MBR_CASES:-}" ] || echo " $MBR_CASES " | grep -q " $1 "; }
# only LIST: the cases of a comma-separated LIST that are wanted, or "".
only() {
	for c in $(echo "$1" | tr , ' '); do wanted "$c" && printf '%s,' "$c"; done | sed 's/,$//'
}
# cases_for KREL LIST: LIST less, on a 7.x kernel in make check, the
# cases of tests/cases/pending-7x.list (check-matrix runs them all).
pending7x=$(sed -n 's/^\([a-z_0-9]\+\)\t.*/\1/p' "$MBR_TOP/tests/cases/pending-7x.list")
cases_for() {
	case $1 in
	[0-6].*) echo "$2"; return 0 ;;
	esac
	if [ -n "${MBR_MATRIX:-}" ]; then
		echo "$2"
		return 0
	fi
	for c in $(echo "$2" | tr , ' '); do
		echo "$pending7x" | grep -qx "$c" || printf '%s,' "$c"
	done | sed 's/,$//'
}
[ -z "$pending7x" ] || echo "# not yet run on 7.x in make check (tests/cases/pending-7x.list): $(echo $pending7x)"
# memcg_selftests has guests of its own: a 1 GiB guest per generic
# kernel, a minute each (make check-selftests runs only those).
all_cases=$(cd "$MBR_TOP/tests/cases" && ls *.sh | sed 's/\.sh$//' |
	grep -v -e '^nr_workers$' -e '^cpu_hotplug$' -e '^memcg_selftests$' \
		-e '^memsw_v1$' |
	tr '\n' ',' | sed 's/,$//')
smoke_cases=$(grep -v '^#' "$MBR_TOP/tests/cases/smoke.list" | tr '\n' ',' | sed 's/,$//')
v1_cases=$(grep -v '^#' "$MBR_TOP/tests/cases/cgroup_v1.list" 2>/dev/null | tr '\n' ',' | sed 's/,$//')

arm64_smoke_cases=$(grep -v '^#' "$MBR_TOP/tests/cases/smoke-arm64.list" | tr '\n' ',' | sed 's/,$//')
# arch_cases KREL LIST: LIST less the cases of the other architecture:
# static_calls (x86's direct calls) on arm64, landing_pads on x86.
arch_cases() {
	case $1 in
	*-arm64) drop=static_calls ;;
	*) drop=landing_pads ;;
	esac
	for c in $(echo "$2" | tr , ' '); do
		echo " $drop " | grep -q " $c " || printf '%s,' "$c"
	done | sed 's/,$//'
}

# job TAG KREL CPUS DISK_MB CASES [KERNEL ARGS]: one guest, in the list
# (longest first: the list is written in that order).
job() {
	cases=$(only "$(arch_cases "$2" "$5")")
	[ -n "$cases" ] || return 0
	tag=$1 krel=$2 cpus=$3 disk=$4
	shift 5
	echo "vm $tag $krel $cpus $disk $cases $*" >>"$JOBS/list"
}

armsmoke=
if [ -n "${MBR_DEBUG:-}" ]; then
	stock=$(mbr_test_krels | grep '^6\.12\.' | head -n 1)
	echo "# check-debug: building the debug kernel (cached; the first build takes ~30 min)"
	MBR_KDIR=$(sh "$MBR_TOP/tests/debug/kernel.sh" "$stock")
	if [ -z "$MBR_KDIR" ]; then
		echo "not ok - debug kernel builds" | emit
		krels=
	else
		echo "ok - debug kernel builds" | emit
		krels=$(make -s -C "$MBR_KDIR" kernelrelease)
		MBR_KERNEL=$MBR_KDIR/arch/x86/boot/bzImage
		# KASAN and lockdep under TCG: several times slower than stock.
		MBR_TIMEOUT=${MBR_TIMEOUT:-10800}
		# KASAN's shadow (1/8 of RAM), its quarantine and kmemleak's
		# metadata: 10,000 cgroups do not fit the stock suite's 1 GiB.
		MBR_MEM=${MBR_MEM:-2048}
		export MBR_KDIR MBR_KERNEL MBR_TIMEOUT MBR_MEM
	fi
	generic=$krels
	smoke=
else
	all=$(sh "$MBR_TOP/tests/kernels.sh" all)
	# arm64: bookworm's 6.1, trixie's 6.12 and the newest 7.x, generic,
	# in make check.
	arm=$(sh "$MBR_TOP/tests/kernels.sh" "arm64 cloud-arm64")
	# The newest 7.x: the highest version of trixie-backports and sid.
	new=$(echo "$all" | awk '$1 !~ /^6\./ { print $2 }' | sort -V | tail -n 1)
	full=$(echo "$all" | awk -v n="$new" '$3 == "amd64" &&
		(($1 == "6.1" && $4 == "bookworm") || ($1 == "6.12" && $4 == "trixie") ||
		$2 == n) { print $2 "-" $3 }')
	krels=$(echo "$all" | awk '{ print $2 "-" $3 }')
	armk=$(echo "$arm" | awk '{ print $2 "-" $3 }')
	if [ -n "${MBR_MATRIX:-}" ]; then
		generic=$(printf '%s\n' "$krels" "$armk")
		krels=$generic
		smoke=
	else
		generic=$full
		# Cloud flavours: built by DKMS in the package test; their
		# guests run in check-matrix (make check's time).
		smoke=$(echo "$all" | awk -v n="$new" '($3 == "amd64" ||
			($4 == "bookworm" && $3 == "rt-amd64") ||
			($2 == n && $3 == "rt-amd64")) { print $2 "-" $3 }' |
			grep -vxF "$full")
		newarm=$(echo "$arm" | awk '$1 !~ /^6\./ { print $2 }' | sort -V | tail -n 1)
		armsmoke=$(echo "$arm" | awk -v n="$newarm" '$3 == "arm64" &&
			(($1 == "6.1" && $4 == "bookworm") ||
			($1 == "6.12" && $4 == "trixie") || $2 == n) { print $2 "-" $3 }')
		[ "$(echo $armsmoke | wc -w)" = 3 ] ||
			echo "not ok - setup: the arm64 kernels of make check, 6.1, 6.12 and 7.x, found (got: $(echo $armsmoke))" | emit
		krels="$generic $smoke $armsmoke"
	fi
	newest=$(echo "$generic" | grep "^$new-amd64\$")
fi
# MBR_KRELS="KREL ..." limits the guests and builds to those kernels
# (make check-matrix of some kernels only; not with MBR_DEBUG).
if [ -n "${MBR_KRELS:-}" ] && [ -z "${MBR_DEBUG:-}" ]; then
	want=" $(echo $MBR_KRELS) "
	for k in $want; do
		echo " $(echo $krels) " | grep -qF " $k " ||
			echo "not ok - setup: MBR_KRELS names $k, not a kernel of this run" | emit
	done
	pick() { for k in $1; do echo "$want" | grep -qF " $k " && echo "$k"; done; }
	krels=$(pick "$krels") generic=$(pick "$generic")
	smoke=$(pick "$smoke") armsmoke=$(pick "$armsmoke")
fi
echo "# kernels, full suite: $(echo $generic)"
echo "# kernels, smoke set: $(echo ${smoke:-none})"
echo "# kernels, arm64 smoke set: $(echo ${armsmoke:-none})"

# build_kernel KREL: the module for KREL, its W=1 and IBT checks, the
# fault-injection variant and the kernel's selftests where wanted, and
# its guest's initramfs; TAP lines on stdout, status 1 if there is no
# guest to boot. The full kernels are built first; the smoke kernels in
# their own jobs, beside the first guests.
build_kernel() {
	krel=$1
	ko=$(mbr_build_ko "$krel")
	if [ -z "$ko" ]; then
		echo "not ok - build[$krel]: module builds ($(cat "$MBR_BUILD/ko-$krel/gcc" 2>/dev/null))"
		sed 's/^/#   /' "$MBR_BUILD/ko-$krel/build.log" | tail -n 40
		return 1
	fi
	echo "ok - build[$krel]: module builds with $(mbr_krel_release "$krel")'s $(cat "$MBR_BUILD/ko-$krel/gcc")"
	w=$(grep -c -i 'warning' "$MBR_BUILD/ko-$krel/build.log")
	if [ "$w" = 0 ]; then r=ok; else r="not ok"; fi
	echo "$r - build[$krel]: W=1 build has no warnings ($w)"
	grep -i 'warning' "$MBR_BUILD/ko-$krel/build.log" | head -n 20 | sed 's/^/#   /'
	# No indirect branch can reach a resolved function (IBT; arm64's
	# calls are indirect, their landing pads checked in the guest).
	arch=$(mbr_krel_arch "$krel")
	[ "$arch" = arm64 ] ||
		python3 "$MBR_TOP/tests/static_calls.py" "$krel" "$MBR_BUILD/ko-$krel" "$(mbr_kroot "$krel")"

	# (DKMS builds for every kernel are tested by the package.)
	# The fault-injection variant, for every kernel that runs fault_paths
	# or landing_pads.
	MBR_FI_KO=
	if [ "$arch" = arm64 ] || echo "$generic" | grep -qx "$krel"; then
		MBR_FI_KO=$(mbr_build_ko "$krel" fi) ||
			echo "not ok - build[$krel]: fault-injection variant builds"
	fi
	export MBR_FI_KO
	# make check's scale (make check-matrix runs the cases at theirs):
	# the full kernels' rmdir race, reconfiguration storm, lifetime
	# rounds, rmmod loop and many groups smaller, the smoke guests'
	# rmdir race smaller still and their load/unload cycles fewer.
	MBR_GUEST_ENV=
	if ! echo "$generic" | grep -qx "$krel"; then
		MBR_GUEST_ENV=$MBR_BUILD/guest-smoke.env
		printf '%s\n' MBR_RMDIR_ITERS=15 MBR_LOAD_CYCLES=20 >"$MBR_GUEST_ENV"
	elif [ -z "${MBR_MATRIX:-}${MBR_DEBUG:-}" ]; then
		MBR_GUEST_ENV=$MBR_BUILD/guest-full.env
		printf '%s\n' MBR_RMDIR_ITERS=50 MBR_STORM_SECS=30 \
			MBR_LIFETIME_ROUNDS=30 MBR_ADD_REMOVE_S=15 \
			MBR_RMMOD_ITERS=10 MBR_MANY_GROUPS=50 >"$MBR_GUEST_ENV"
	fi
	export MBR_GUEST_ENV
	MBR_SELFTESTS=
	if [ -z "${MBR_DEBUG:-}" ] && wanted memcg_selftests &&
		echo "$generic" | grep -qx "$krel"; then
		# The kernel's memcg selftests of this kernel's series (cached).
		MBR_SELFTESTS=$(MBR_KROOT=$(mbr_kroot "$krel") sh "$MBR_TOP/tests/selftests/build.sh" "$krel") ||
			echo "not ok - build[$krel]: the kernel's memcg selftests build"
	fi
	export MBR_SELFTESTS
	if ! MBR_KROOT=$(mbr_kroot "$krel") sh "$MBR_TOP/tests/vm/mkinitramfs.sh" "$krel" "$ko" "$(mbr_helpers_dir "$arch")" \
		"$MBR_BUILD/initrd-$krel.gz"; then
		echo "not ok - vm[$krel]: initramfs builds"
		return 1
	fi
}

# Every kernel's packages, in its release's chroot, before jobs that
# share a chroot run side by side; the chroots side by side (a fresh
# machine makes each once, in a few minutes).
sh "$MBR_TOP/tests/archive.sh" >/dev/null || echo "not ok - setup: the other releases' package lists" | emit
for rel in $(for krel in $krels; do mbr_krel_chroot "$krel"; done | sort -u); do
	for krel in $krels; do
		[ "$(mbr_krel_chroot "$krel")" = "$rel" ] || continue
		mbr_kroot "$krel" >/dev/null ||
			echo "not ok - setup[$krel]: the kernel's packages install in its release's chroot"
	done >"$JOBS/chroot-$rel.tap" &
done
wait
cat "$JOBS"/chroot-*.tap 2>/dev/null | emit
built=
for krel in $generic; do
	build_kernel "$krel" >"$JOBS/build.tap"
	rc=$?
	emit <"$JOBS/build.tap"
	[ "$rc" = 0 ] && built="$built $krel"
done
# The smoke kernels are built by their jobs.
built="$built $smoke $armsmoke"
has() { echo " $built " | grep -q " $1 "; }

# selftests KREL...: the kernel's memcg selftests guest of each (a
# minute each: among the last in make check).
selftests() {
	[ -z "${MBR_DEBUG:-}" ] || return 0
	for krel in "$@"; do
		has "$krel" || continue
		c=$(cases_for "$krel" memcg_selftests)
		[ -n "$c" ] && job selftests "$krel" 2 1024 "$c"
	done
}
# The guests, longest first.
if [ -n "${MBR_SELFTEST_RUN:-}" ]; then
	selftests $generic
	generic=
	smoke=
fi
for krel in $generic; do
	has "$krel" || continue
	if [ -z "${MBR_DEBUG:-}" ]; then
		job main "$krel" 2 4096 "$(cases_for "$krel" "$all_cases,nr_workers")"
		continue
	fi
	# The debug kernel is several times slower: two guests share the cases.
	a= b=
	for c in $(echo "$all_cases,nr_workers" | tr , ' '); do
		a="$a${a:+,}$c"
		t=$a a=$b b=$t	# alternate: the next case goes to the other guest
	done
	job main-a "$krel" 2 4096 "$b"
	job main-b "$krel" 2 4096 "$a"
done
for krel in $smoke $armsmoke; do
	list=$smoke_cases
	[ "$(mbr_krel_arch "$krel")" = arm64 ] && list=$arm64_smoke_cases
	cases=$(only "$list")
	[ -n "$cases" ] && echo "vmb smoke $krel 2 4096 $cases" >>"$JOBS/list"
done
# The memory controller on cgroup v1 (6.1 only: 6.12 has no
# CONFIG_MEMCG_V1, which the cgroup_v1 case checks on v2).
if [ -n "$v1_cases" ] && [ -z "${MBR_DEBUG:-}" ]; then
	for krel in $generic; do
		case $krel in 6.1.*) has "$krel" && job v1 "$krel" 2 4096 "$v1_cases" mbr.cgroup=v1 ;; esac
	done
fi
# The IBT-enforcing emulator (bochs), on trixie's 6.12. Not on 7.x yet:
# 7.3.4 panics at boot in Bochs 2.7's tigerlake model, before any
# module (fpstate_reset() from fpu__init_system_xstate(), a NULL
# pointer), on its emulated XSAVE features.
for ibt_krel in $(echo "$generic" | grep -e '^6\.12\..*+deb13-amd64$'); do
	if [ -z "${MBR_DEBUG:-}" ] && wanted ibt && has "$ibt_krel"; then
		echo "ibt ibt $ibt_krel" >>"$JOBS/list"
	fi
done
# The Debian package on this host and in each release's chroot (dpkg -i,
# DKMS for every kernel, signing, dpkg -P), then a guest that boots the
# .ko DKMS installed for the newest 7.x, with the packaged command
# line's cases.
deb_krel=${newest:-}
if [ -z "${MBR_DEBUG:-}" ] && wanted deb && [ -n "$deb_krel" ] && has "$deb_krel"; then
	echo "deb deb $deb_krel" >>"$JOBS/list"
fi
# The worker count on 2 CPUs is in the main guest; 4 CPUs with hotplug
# here; 1 and 9 CPUs in make check-matrix and check-debug (time).
for krel in $generic; do
	has "$krel" || continue
	job cpu4 "$krel" 4 1024 nr_workers,cpu_hotplug
	[ -n "${MBR_MATRIX:-}${MBR_DEBUG:-}" ] || continue
	job cpu9 "$krel" 9 0 nr_workers
	job cpu1 "$krel" 1 0 nr_workers
done
selftests $generic

# run_job N KIND TAG KREL ...: one guest; its TAP lines go to
# $JOBS/N.tap, labelled with the kernel, the guest and its CPU count.
run_job() {
	n=$1 kind=$2 tag=$3 krel=$4
	shift 4
	t0=$(date +%s)
	case $kind in
	vm | vmb)
		cpus=$1 disk=$2 cases=$3
		shift 3
		label="$krel${tag#main}"
		[ "$tag" = main ] || label="$krel $tag"
		initrd=$MBR_BUILD/initrd-$tag-$krel.gz
		[ -f "$initrd" ] || initrd=$MBR_BUILD/initrd-$krel.gz
		# A smoke kernel's module is built here, beside other guests.
		: >"$JOBS/$n.raw"
		if [ "$kind" = vm ] || build_kernel "$krel" >>"$JOBS/$n.raw" 2>&1; then
			MBR_KERNEL=${MBR_KERNEL:-$(mbr_kernel_image "$krel")} \
				MBR_APPEND="$*" MBR_DISK_MB=$disk MBR_OUT=$MBR_BUILD \
				sh "$MBR_TOP/tests/vm/run.sh" "$krel" "$initrd" \
				"$krel-$tag" "$cpus" "$cases" </dev/null >>"$JOBS/$n.raw" 2>&1
		fi
		;;
	deb)
		# The package (host DKMS builds, one slot), then its guest.
		label="$krel deb"
		dko=$MBR_BUILD/deb/memcg_bgreclaim.ko
		{
			MBR_DEB_KRELS="$built" MBR_DEB_KREL=$krel sh "$MBR_TOP/tests/deb.sh" test
			if [ -f "$dko" ] && MBR_FI_KO= MBR_KROOT=$(mbr_kroot "$krel") \
				sh "$MBR_TOP/tests/vm/mkinitramfs.sh" "$krel" "$dko" \
				"$MBR_BUILD/helpers" "$MBR_BUILD/initrd-deb-$krel.gz"; then
				echo "ok - deb: a guest boots the .ko DKMS installed for $krel (sha256 $(cut -c1-16 "$dko.sha256")...)"
				MBR_KERNEL=$(mbr_kernel_image "$krel") MBR_DISK_MB=1024 MBR_OUT=$MBR_BUILD \
					sh "$MBR_TOP/tests/vm/run.sh" "$krel" "$MBR_BUILD/initrd-deb-$krel.gz" \
					"$krel-deb" 2 hook_targets,rules,cli </dev/null
			else
				echo "not ok - deb: a guest boots the .ko DKMS installed for $krel"
			fi
		} >"$JOBS/$n.raw" 2>&1
		;;
	ibt)
		label="$krel bochs"
		MBR_KROOT=$(mbr_kroot "$krel") sh "$MBR_TOP/tests/ibt/run.sh" "$krel" \
			"$MBR_BUILD/ko-$krel/memcg_bgreclaim.stripped.ko" \
			</dev/null >"$JOBS/$n.raw" 2>&1
		;;
	esac
	sed "s/^\(\(not \)\?ok\) - /\1 - [$label] /" "$JOBS/$n.raw" >"$JOBS/$n.tap"
	echo "# guest $n ($label) done in $(($(date +%s) - t0)) s"
}

# A pool of MBR_JOBS slots: a single-threaded TCG guest is one host
# thread, and the machines this runs on have 2 cores.
slots=${MBR_JOBS:-2}
MBR_TIMEOUT=${MBR_TIMEOUT:-3000}
export MBR_TIMEOUT
n=0 pids=
: >"$JOBS/order"
touch "$JOBS/list"
while read -r kind rest; do
	n=$((n + 1))
	echo "$n" >>"$JOBS/order"
	while :; do
		live=
		for p in $pids; do kill -0 "$p" 2>/dev/null && live="$live $p"; done
		pids=$live
		[ "$(echo $pids | wc -w)" -lt "$slots" ] && break
		sleep 2
	done
	# shellcheck disable=SC2086
	run_job "$n" "$kind" $rest &
	pids="$pids $!"
done <"$JOBS/list"
wait
for n in $(cat "$JOBS/order"); do
	cat "$JOBS/$n.tap"
done | emit

[ -z "${MBR_DEBUG:-}" ] && sh "$MBR_TOP/tests/style.sh" | emit

pass=$(grep -c '^ok ' "$TAP")
fail=$(grep -c '^not ok ' "$TAP")
skipped=$(grep -c '^ok .*# SKIP' "$TAP")
# The failures again, each with the lines around it in its guest's
# output, where a reader of only the run's last lines will see them.
if [ "$fail" != 0 ]; then
	echo "# the failed points (the first 30), with the 8 lines before and after each in their guest's output:"
	grep '^not ok ' "$TAP" | head -n 30 | while IFS= read -r line; do
		printf '# %s\n' "$line"
		desc=$(printf '%s\n' "$line" | sed 's/^not ok [0-9]* - //')
		for f in "$JOBS"/*.tap; do
			grep -n -F -- "$desc" "$f" 2>/dev/null | grep -m 1 '^[0-9]*:not ok' |
				while IFS=: read -r ln _; do
					sed -n "$((ln > 8 ? ln - 8 : 1)),$((ln + 8))p" "$f" | sed 's/^/#   | /'
				done
		done
	done
fi
# The run's output, kept outside the build tree (a CI clone is removed
# with it): the last five runs, under $MBR_CACHE/runs.
keep=$MBR_CACHE/runs/$(date -u +%Y%m%dT%H%M%S)-$(git -C "$MBR_TOP" rev-parse --short HEAD 2>/dev/null || echo unknown)$suffix
if mkdir -p "$keep" 2>/dev/null; then
	cp "$TAP" "$JOBS/list" "$JOBS/order" "$keep/" 2>/dev/null
	for n in $(cat "$JOBS/order"); do cp "$JOBS/$n.raw" "$keep/guest-$n.log" 2>/dev/null; done
	find "$MBR_BUILD" -maxdepth 1 -name 'console-*.log' -newer "$stamp" -exec cp {} "$keep/" \; 2>/dev/null
	gzip -qf "$keep"/*.log 2>/dev/null
	ls -d "$MBR_CACHE"/runs/*/ | head -n -5 | xargs -r rm -rf
	echo "# this run's TAP, guest output and consoles: $keep"
fi
echo "# make check$suffix took $(($(date +%s) - start)) s"
echo "1..$((pass + fail))"
echo "# $skipped of the ok points are skips, not counted as passed"
echo "$((pass - skipped)) passed, $fail failed"
[ "$fail" = 0 ]
