# The kernel's own memory cgroup selftests (test_memcontrol and test_kmem
# of tools/testing/selftests/cgroup, built from this kernel's Debian
# linux-source by tests/selftests/build.sh), run twice in this boot:
# on the stock kernel (the baseline, module not loaded), then with the
# module loaded and every cgroup they create configured for background
# reclaim the moment it appears (cgconf: add, high distance 2m, low 1m).
#
# One test point per selftest test, judged on the module run:
#   passes with the module                          ok
#   fails with the module, listed in known-stock-failures (flaky on
#     stock), and passes when run again with the module (at most
#     MBR_SELFTEST_RERUNS=6 more runs)              ok, naming both runs
#   fails with the module, failed the same way in the baseline of this
#     boot, and listed in known-stock-failures       ok # SKIP known stock failure
#   fails with the module at the very assertion that a line of
#     known-module-exceptions names (one that counts an event background
#     reclaim exists to prevent), passed in the baseline
#                                                    ok # SKIP waived
#   anything else                                    not ok
# The assertion a failing test stopped at is its last "goto" (build.sh
# instruments them), named by its source condition.
#
# Needs the ext4 scratch disk at /mnt (the page cache tests need a real
# file system; /tmp is tmpfs) and /selftests in the initramfs
# (MBR_SELFTESTS of mkinitramfs.sh).
ST=/selftests
PROGS="test_memcontrol test_kmem"
HIGH=2m
LOW=1m
# Per run of one binary, so that a hung test cannot hang the guest
# (a whole binary took 10-45 s under TCG on a loaded host).
TMO=${MBR_SELFTEST_TIMEOUT:-300}
series=$(uname -r | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')
R=/tmp/memcg_selftests
rm -rf $R
mkdir -p $R

uptime_s() { cut -d' ' -f1 /proc/uptime; }
# A SKIP with its reason after the directive, as TAP has it.
skip_why() { echo "ok - $MBR_CASE: $(oneline "$1") # SKIP $(oneline "$2")"; }

case_t0=$(uptime_s)
if [ ! -x $ST/test_memcontrol ] || [ ! -x $ST/test_kmem ]; then
	fail "selftest binaries in the initramfs (MBR_SELFTESTS of tests/vm/mkinitramfs.sh, built by tests/selftests/build.sh)"
	exit 0
fi
if [ ! -f /sys/fs/cgroup/cgroup.controllers ]; then
	skip_why "memcg selftests" "they need the memory controller on cgroup2"
	exit 0
fi
if ! awk '$2 == "/mnt" && $3 == "ext4" { f = 1 } END { exit !f }' /proc/mounts; then
	fail "ext4 scratch disk at /mnt (MBR_DISK_MB > 0)"
	exit 0
fi
diag "selftests of $(cat $ST/VERSION) on $(uname -r)"

# Swap for test_memcg_swap_max and the anon half of test_memcg_reclaim
# (both look at /proc/swaps): zram, mostly zero pages, so it costs the
# 1 GiB guest little.
if zram_swap_on 512M; then
	diag "swap: $(awk 'NR > 1 { print $1, $3 " kB" }' /proc/swaps)"
else
	fail "zram swap set up"
fi
# The tests run chrooted on the ext4 disk (selftests_root, lib.sh).
RT=$MBR_ST_ROOT
selftests_root $PROGS
# The OOM tests provoke the OOM killer: its reports' stack dumps are
# expected (one per invocation; see run_case).
touch /tmp/mbr_allow_oom_trace

# cleanup_cgroups (lib.sh) removes what a killed or failed test left
# behind: a later test that makes a cgroup of the same name would fail
# at its mkdir.

# run_prog PROG TAG: run one selftest binary; every line of its output
# (stdout TAP and stderr), prefixed by the uptime it came at, goes to
# $R/TAG-PROG.out; then $R/TAG-PROG.res gets one line per test:
# NAME pass|fail|skip SECONDS AT, AT the line of the goto a failed test
# left by ("end": none, it failed at its final check).
run_prog() {
	local t0
	t0=$(uptime_s)
	(timeout "$TMO" chroot $RT /bin/$1 2>&1; echo "# exit $?") |
		while IFS= read -r l; do echo "$(uptime_s) $l"; done >$R/$2-$1.out
	awk -v t0="$t0" -v notes=$R/$2-$1.notes '
	# The last goto of a test function is where it failed; the gotos of the
	# helpers it ran (in child processes) are kept as what it said.
	$2 == "#" && $3 == "mbr-at" && $4 ~ /^test_/ { at = $5; next }
	$2 == "ok" || ($2 == "not" && $3 == "ok") {
		if ($2 == "not") { res = "fail"; name = $5 }
		else if ($4 == "#" && $5 == "SKIP") { res = "skip"; name = $6 }
		else { res = "pass"; name = $4 }
		printf "%s %s %.1f %s\n", name, res, $1 - t0,
			res == "fail" ? (at == "" ? "end" : at) : "-"
		# What the test printed itself, kept for a failed one.
		if (res == "fail")
			for (i = 1; i <= n && i <= 12; i++)
				print name "\t" said[i] >notes
		t0 = $1
		at = ""
		n = 0
		next
	}
	$2 != "#" || $3 != "exit" { $1 = ""; said[++n] = substr($0, 2) }
	' $R/$2-$1.out >$R/$2-$1.res
	diag "$1 ($2): $(awk '{ print $1 }' $R/$2-$1.res | wc -l) tests in $(awk -v a="$t0" -v b="$(uptime_s)" 'BEGIN { printf "%.0f", b - a }') s, $(tail -n 1 $R/$2-$1.out | cut -d' ' -f2-)"
	cleanup_cgroups
}

# res TAG PROG TEST: "RESULT SECONDS AT" of one test, or "none".
res() {
	awk -v t="$3" '$1 == t { print $2, $3, $4; f = 1 } END { if (!f) print "none - -" }' \
		$R/$1-$2.res
}

# assertion PROG AT: the source condition of the goto at line AT (as
# the lists name it); nothing for a test that did not fail.
assertion() {
	case $2 in
	-) ;;
	end) echo "(the final check, no goto)" ;;
	*) awk -F'\t' -v l="$2" '$1 == l { print $2 }' $ST/$1.asserts ;;
	esac
}
# at PROG AT: " at LINE: CONDITION" for the reports.
at() {
	case $2 in
	-) ;;
	end) echo " at $(assertion "$1" end)" ;;
	*) echo " at $2: $(assertion "$1" "$2")" ;;
	esac
}

# listed FILE PROG TEST [ASSERTION]: the reason of the first matching
# line of a list: "SERIES | PROGRAM | TEST [| ASSERTION] | REASON",
# SERIES * for any. Fields are split at " | " only: a C condition may
# hold "||".
listed() {
	awk -F' [|] ' -v s="$series" -v p="$2" -v t="$3" -v a="$4" '
	/^#/ || NF < 4 { next }
	{ for (i = 1; i <= NF; i++) gsub(/^ +| +$/, "", $i) }
	($1 == s || $1 == "*") && $2 == p && $3 == t && (a == "" || $4 == a) {
		print $NF
		exit
	}' $ST/$1
}

# Count direct memcg reclaims with the kernel's own tracepoint (lib.sh),
# all tasks together, per run.
direct_reclaims() {
	grep -o 'hitcount: *[0-9]*' "$MBR_RECLAIM_EV/hist" |
		awk '{ s += $2 } END { print s + 0 }'
}

# The baseline: the stock kernel, no module.
base_t0=$(uptime_s)
for p in $PROGS; do
	trace_reclaims_start
	run_prog $p stock
	diag "$p (stock): $(direct_reclaims) direct memcg reclaims"
	trace_reclaims_stop
done
base_s=$(awk -v a="$base_t0" -v b="$(uptime_s)" 'BEGIN { printf "%.0f", b - a }')

# With the module, every new cgroup configured by cgconf.
BGHIST='hist:keys=common_pid:vals=hitcount,reclaimed'
# run_module PROG TAG: one run of PROG with the module loaded and cgconf
# configuring its cgroups; the first run (TAG module) checks that the
# configuration took effect, a rerun only reports. Fails if cgconf was
# not watching or configured none of the cgroups: such a run says
# nothing about the module.
run_module() {
	local p=$1 tag=$2 conf sum seen confd
	cgconf_start $R/cgconf-$tag-$p.out $R/cgconf-$tag-$p.log $HIGH $LOW
	conf=$CGCONF_PID
	[ $tag = module ] &&
		check "cgconf watches the cgroup tree ($p)" grep -q ready $R/cgconf-$tag-$p.out
	echo "$BGHIST" >$T/events/memcg_bgreclaim/reclaim/trigger
	trace_reclaims_start
	run_prog $p $tag
	diag "$p ($tag): $(direct_reclaims) direct memcg reclaims"
	trace_reclaims_stop
	# shellcheck disable=SC2046
	set -- $(grep -o 'hitcount: *[0-9]*.*reclaimed: *[0-9]*' \
		$T/events/memcg_bgreclaim/reclaim/hist |
		awk '{ n += $2; r += $4 } END { print n + 0, r + 0 }')
	diag "$p ($tag): background reclaim $1 turns, $2 pages"
	# The configuration took effect: the memory tests run groups into
	# their limits (test_kmem hardly charges past a limit).
	[ $tag = module ] && [ $p = test_memcontrol ] &&
		check "background reclaim worked during $p ($1 turns)" test "$1" -gt 0
	echo "!$BGHIST" >$T/events/memcg_bgreclaim/reclaim/trigger
	kill -TERM $conf
	wait $conf
	sum=$(sed -n 2p $R/cgconf-$tag-$p.out)
	diag "cgconf ($p, $tag): $sum"
	# Why a group was not configured, first ones (the module's -EINVAL
	# for no memory controller or a limit under the distances).
	grep -e '^refused' -e '^gone' $R/cgconf-$tag-$p.log | head -n 8 | sed 's/^/#   cgconf: /'
	seen=$(echo "$sum" | awk '{ print $2 }')
	confd=$(echo "$sum" | awk '{ print $4 }')
	[ $tag = module ] &&
		check "cgconf configured the cgroups of $p ($confd of $seen seen)" \
			test "${confd:-0}" -gt 0
	grep -q ready $R/cgconf-$tag-$p.out && [ "${confd:-0}" -gt 0 ]
}
mod_t0=$(uptime_s)
check "module loads" mbr_load
for p in $PROGS; do
	mbr_loaded || break
	run_module $p module
done

# A test that is flaky on stock (listed in known-stock-failures) and
# failed with the module, but not at the very assertion it failed at in
# the baseline of this boot, runs again with the module, up to
# MBR_SELFTEST_RERUNS times: one run cannot tell the kernel's own flake
# from a breach. Its verdict then names the failed run and the rerun
# that passed; a test that fails every rerun fails. Tests that are not
# listed (test_memcg_low, say) are never rerun. $R/reruns-PROG: TEST
# RERUN, the rerun a test passed in.
RERUNS=${MBR_SELFTEST_RERUNS:-6}
for p in $PROGS; do
	: >$R/reruns-$p
	todo=
	while read -r t m _ mat; do
		[ "$m" = fail ] || continue
		[ -n "$(listed known-stock-failures $p $t)" ] || continue
		# shellcheck disable=SC2046
		set -- $(res stock $p $t)
		[ "$1" = fail ] && [ "$3" = "$mat" ] && continue
		todo="$todo $t"
	done <$R/module-$p.res
	k=0
	while [ -n "$todo" ] && [ $k -lt "$RERUNS" ] && mbr_loaded; do
		k=$((k + 1))
		diag "$p: rerun $k with the module for$todo (flaky on stock)"
		if ! run_module $p rerun$k; then
			diag "$p: rerun $k does not count: cgconf did not configure its cgroups"
			continue
		fi
		left=
		for t in $todo; do
			# shellcheck disable=SC2046
			set -- $(res rerun$k $p $t)
			if [ "$1" = pass ]; then
				echo "$t $k" >>$R/reruns-$p
			else
				left="$left $t"
			fi
		done
		todo=$left
	done
done
mod_s=$(awk -v a="$mod_t0" -v b="$(uptime_s)" 'BEGIN { printf "%.0f", b - a }')

# The verdicts, and the table of both runs.
for p in $PROGS; do
	diag "${p}[$series]: test: stock result (s), module result (s) [failed at]"
	for t in $(awk '{ print $1 }' $R/stock-$p.res $R/module-$p.res | awk '!s[$0]++'); do
		# shellcheck disable=SC2046
		set -- $(res stock $p $t) $(res module $p $t)
		b=$1 ba=$(assertion $p "$3") bat=$(at $p "$3")
		m=$4 ma=$(assertion $p "$6") mat=$(at $p "$6")
		diag "  $t: stock $b ($2 s)$bat, module $m ($5 s)$mat"
		# What a failed test printed (stock, then module run).
		for r in stock module; do
			[ -f $R/$r-$p.notes ] || continue
			awk -F'\t' -v t="$t" -v r=$r '
			FILENAME != ARGV[2] { cond[$1] = $2; next }
			$1 == t {
				split($2, w, " ")
				if (w[2] == "mbr-at")
					$2 = w[3] "() left at " w[4] ": " cond[w[4]]
				print "#     " r ": " $2
			}' $ST/$p.asserts $R/$r-$p.notes
		done
		d="${p}[$series]: $t"
		case $m:$b in
		pass:*)
			pass "$d"
			continue
			;;
		skip:skip)
			skip_why "$d" "the selftest skips it on this kernel, stock too"
			continue
			;;
		esac
		# Failed the same way without the module: the kernel's, if known.
		if [ "$b" = fail ] && [ "$ma" = "$ba" ]; then
			why=$(listed known-stock-failures $p $t)
			if [ -n "$why" ]; then
				skip_why "$d" "known stock failure: $why"
				continue
			fi
		fi
		# Flaky on stock, and passed with the module when run again.
		k=$(awk -v t="$t" '$1 == t { print $2 }' $R/reruns-$p)
		if [ -n "$k" ]; then
			pass "$d (flaky on stock: $(listed known-stock-failures $p $t); with the module it failed$mat, then passed in rerun $k of $RERUNS)"
			continue
		fi
		# Fails only with the module, at a waived assertion.
		if [ "$b" = pass ] && [ "$m" = fail ]; then
			why=$(listed known-module-exceptions $p $t "$ma")
			if [ -n "$why" ]; then
				skip_why "$d" "waived: fails$mat: $why"
				continue
			fi
		fi
		fail "$d (module: $m$mat; stock: $b$bat)"
	done
done

selftests_root_done
zram_swap_off
diag "memcg_selftests took $(awk -v a="$case_t0" -v b="$(uptime_s)" 'BEGIN { printf "%.0f", b - a }') s (stock runs $base_s s, module runs $mod_s s)"
