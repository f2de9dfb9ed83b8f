# The kernel reclaims whole folios: a turn that needs a few more pages
# and meets a transparent huge page frees all 512 of it. So while a
# group holds huge pages, a turn ends a huge page (plus the 32 pages the
# kernel rounds a request up to) short of high_wmark, and no turn takes
# the group below the mark; a group whose band is wider than that is
# still reclaimed in the background. Without huge pages, turns go down
# to the mark itself. The margin is at most half the band: a group whose
# band is narrower than a huge page is still reclaimed, and may end up to
# a huge page below its stop mark. Anonymous memory with zram swap, THP
# "always" (Debian's default), then "never", then "always" with a band of
# 1 MiB (which had no turn at all while the margin was a full huge page). Before the margin, the "always" run
# settled 1940 KiB below the mark (6.1, 2026-12-05).
#
# A turn's lowest possible end is its reclaim tracepoint's usage (at the
# turn's start) minus what it freed: the group's own charges during the
# turn only raise it.
T=/sys/kernel/tracing
THP=/sys/kernel/mm/transparent_hugepage/enabled
MARGIN=$(((512 + 32) * 4096))
check "zram swap" zram_swap_on 256M
thp0=$(sed 's/.*\[\(.*\)\].*/\1/' $THP)
# No collapse by khugepaged into ranges with unmapped pages, which would
# charge the settled group up to 2 MiB more.
PTES=/sys/kernel/mm/transparent_hugepage/khugepaged/max_ptes_none
ptes0=$(cat $PTES)
echo 0 >$PTES
check "module loads" mbr_load

# thp_run MODE [HIGH LOW MORE]: group TH (64M, marks HIGH/LOW, by default
# 16m/8m: stop 48M, wake 56M) under THP MODE: 40M of anonymous memory,
# then MORE (18) MiB more, which takes it past the wake mark; background reclaim then takes it back down and the
# group settles. Sets CUR (its usage then), LOW (the lowest turn end),
# TURNS, STOP, THP_B (anon_thp then, bytes) and RECL (reclaimed_pages).
thp_run() {
	local mode=$1 high=${2:-16m} low=${3:-8m} more=${4:-18} i prev=
	echo "$mode" >$THP
	mkgroup TH 64M
	check "watch TH (high $high, low $low), THP $mode" mbr_watch TH $high $low
	STOP=$(wmark TH high)
	WAKE=$(wmark TH low)
	: >/tmp/anon1.out
	: >/tmp/anon2.out
	run_in TH anon 40 60 >/tmp/anon1.out &
	i=0
	while ! grep -q touched /tmp/anon1.out && [ $i -lt 200 ]; do usleep 100000; i=$((i + 1)); done
	echo >$T/trace
	echo 1 >$T/events/memcg_bgreclaim/reclaim/enable
	run_in TH anon $more 60 >/tmp/anon2.out &
	i=0
	while ! grep -q touched /tmp/anon2.out && [ $i -lt 200 ]; do usleep 100000; i=$((i + 1)); done
	# Settled: the same usage and turn count 0.5 s apart (at most 20 s).
	i=0
	while [ $i -lt 40 ]; do
		cur="$(cgget TH current) $(gstat TH reclaim_runs)"
		[ "$cur" = "$prev" ] && break
		prev=$cur
		usleep 500000
		i=$((i + 1))
	done
	echo 0 >$T/events/memcg_bgreclaim/reclaim/enable
	CUR=$(cgget TH current)
	THP_B=$(mstat TH anon_thp)
	RECL=$(gstat TH reclaimed_pages)
	set -- $(grep -o 'usage=[0-9]* low_wmark=[0-9]* high_wmark=[0-9]* requested=[0-9]* reclaimed=[0-9]*' $T/trace |
		tr '=' ' ' | awk '
		{ e = $2 - $10 * 4096; if (n == 0 || e < m) m = e; n++ }
		END { printf "%d %d\n", m, n }')
	LOW=$1 TURNS=$2
	killgroup TH
	rmgroup TH
	diag "THP $mode: $TURNS turns, reclaimed_pages $RECL, anon_thp $((THP_B >> 10)) KiB; stop mark $((STOP >> 10)) KiB, usage settled at $((CUR >> 10)) KiB, lowest turn end $((LOW >> 10)) KiB"
}

thp_run always
check "THP always: the group holds huge pages ($((THP_B >> 20)) MiB)" test "${THP_B:-0}" -ge $((2 << 20))
check "THP always: background reclaim ran ($TURNS turns, $RECL pages)" test "$TURNS" -gt 0 -a "$RECL" -gt 0
check "THP always: no turn ended below the stop mark ($(((LOW - STOP) >> 10)) KiB above)" test "$LOW" -ge "$STOP"
check "THP always: settled within the margin above it ($(((CUR - STOP) >> 10)) KiB above)" test "$CUR" -ge "$STOP" -a "$CUR" -le $((STOP + MARGIN))

thp_run never
check "THP never: no huge pages ($THP_B bytes)" test "${THP_B:-0}" -eq 0
check "THP never: background reclaim ran ($TURNS turns, $RECL pages)" test "$TURNS" -gt 0 -a "$RECL" -gt 0
check "THP never: reclaimed to the stop mark, no margin ($(((CUR - STOP) >> 10)) KiB above)" test "$CUR" -le $((STOP + (128 << 12)))

thp_run always 2m 1m 23
check "THP always, 1 MiB band: the group holds huge pages ($((THP_B >> 20)) MiB)" test "${THP_B:-0}" -ge $((2 << 20))
check "THP always, 1 MiB band: background reclaim ran ($TURNS turns, $RECL pages)" test "$TURNS" -gt 0 -a "$RECL" -gt 0
check "THP always, 1 MiB band: settled under the wake mark ($(((WAKE - CUR) >> 10)) KiB under)" test "$CUR" -le "$WAKE"
check "THP always, 1 MiB band: at most a huge page and a batch under the stop mark ($(((STOP - LOW) >> 10)) KiB)" test "$LOW" -ge $((STOP - MARGIN - (256 << 12)))

echo "$thp0" >$THP
echo "$ptes0" >$PTES
check "module unloads" mbr_unload
check "zram swap off" zram_swap_off
