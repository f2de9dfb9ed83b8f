# Background reclaim never takes memory that memory.low or memory.min
# protect: not the group's own, not a descendant's, and not what the
# memcgs above it protect in it under the limit that binds. Without the
# rule the
# kernel's reclaim of the group would, once its unprotected memory is
# gone, retry with memory.low ignored and raise the children's "low"
# events (and reclaim the target's own protected memory on 6.12).
check "module loads" mbr_load
F=/mnt/prot.dat
check "test file" make_file $F 192

# events NAME KEY: a key of the cgroup's memory.events.
events() { sed -n "s/^$2 //p" "$CG/$1/memory.events"; }
mib() { echo $(($(cat "$CG/$1/memory.current") >> 20)); }

# 1. The group's own memory.low: marks would take it down to 16M, its
# protection stops background reclaim at 40M.
mkgroup OWN 64M
echo 40M >$CG/OWN/memory.low
check "watch OWN (stop 16M, start 56M)" mbr_watch OWN 48m 8m
drop_caches
run_in OWN dd if=$F of=/dev/null bs=1M count=62 2>/dev/null
sleep 2
u=$(mib OWN)
diag "OWN: memory.current ${u}M, reclaimed_pages $(gstat OWN reclaimed_pages), unreclaimable $(gstat OWN unreclaimable)"
check "OWN was reclaimed in the background" test "$(gstat OWN reclaimed_pages)" -gt 0
check "but not below its memory.low of 40M (${u}M)" test "$u" -ge 39
echo 1 >$CG/OWN/cgroup.kill 2>/dev/null
rmgroup OWN

# 2. Children: B with memory.low, M with memory.min, C unprotected. The
# parent's marks would take it down to 32M; only C may be reclaimed.
mkgroup A 160M
echo +memory >$CG/A/cgroup.subtree_control
mkgroup A/B
mkgroup A/M
mkgroup A/C
echo 48M >$CG/A/B/memory.low
echo 48M >$CG/A/M/memory.min
check "watch A (stop 32M, start 152M)" mbr_watch A 128m 8m
drop_caches
run_in A/B dd if=$F of=/dev/null bs=1M count=44 2>/dev/null
run_in A/M dd if=$F of=/dev/null bs=1M skip=44 count=44 2>/dev/null
lb=$(events A/B low)
lm=$(events A/M low)
# Each read may charge more than its own range: readahead runs on into
# the next one (7.x's large folios read further ahead). What B and M
# hold now is what their protection must keep.
b0=$(mib A/B)
m0=$(mib A/M)
diag "before C's read: B ${b0}M, M ${m0}M"
echo >/sys/kernel/tracing/trace
echo 1 >/sys/kernel/tracing/events/memcg_bgreclaim/enable
run_in A/C dd if=$F of=/dev/null bs=1M skip=88 count=100 2>/dev/null
sleep 2
echo 0 >/sys/kernel/tracing/events/memcg_bgreclaim/enable
grep -oE '(wakeup|reclaim): .*' /sys/kernel/tracing/trace | tail -n 8 | sed 's/^/# /'
diag "A $(mib A)M: B $(mib A/B)M (low events $lb -> $(events A/B low)), M $(mib A/M)M, C $(mib A/C)M; A reclaimed_pages $(gstat A reclaimed_pages) unreclaimable $(gstat A unreclaimable)"
check "A was reclaimed in the background" test "$(gstat A reclaimed_pages)" -gt 0
check "C, unprotected, gave it up ($(mib A/C)M left)" test "$(mib A/C)" -le 40
check "B kept its memory.low-protected cache (${b0}M -> $(mib A/B)M)" test "$(mib A/B)" -ge $((b0 - 1))
check "M kept its memory.min-protected cache (${m0}M -> $(mib A/M)M)" test "$(mib A/M)" -ge $((m0 - 1))
expect_eq "B's memory.events low did not move" "$(events A/B low)" "$lb"
expect_eq "M's memory.events low did not move" "$(events A/M low)" "$lm"
rmgroup A/B A/M A/C A

# 3. What the memcgs above the group protect in it. The group's tasks,
# stalled at a limit above it, would reclaim from that limit's memcg
# down, with each memcg on the way passing its effective protection to
# its children; a turn, rooted inside the group, must leave what that
# reclaim would. Q (128M) binds in rounds 1-3; anon in Q/N holds 32M.
# cg2opts: the cgroup2 mount's options now.
cg2opts() { awk '$2 == "/sys/fs/cgroup" { print $4 }' /proc/mounts; }
# cg2mount OPTS: remount cgroup2 with exactly OPTS (busybox's one-argument
# remount would add the options it has) and check that it took.
cg2mount() {
	mount -t cgroup2 -o "remount${1:+,$1}" cgroup2 /sys/fs/cgroup &&
		test "$(cg2opts | tr , '\n' | grep -c '^memory_recursiveprot$')" = \
			"$(echo "$1" | tr , '\n' | grep -c '^memory_recursiveprot$')"
}
opts0=$(cg2opts | tr , '\n' |
	grep -v -e '^rw$' -e '^relatime$' -e '^memory_recursiveprot$' |
	tr '\n' , | sed 's/,$//')
opts_orig=$(cg2opts |
	tr , '\n' | grep -v -e '^rw$' -e '^relatime$' | tr '\n' , | sed 's/,$//')
opts_rp="memory_recursiveprot${opts0:+,$opts0}"
# hold_anon: 32M of anon in Q/N, touched before it returns.
hold_anon() {
	mkgroup Q/N
	rm -f /tmp/prot.anon
	run_in Q/N anon 32 120 >/tmp/prot.anon &
	t=0
	while ! grep -q touched /tmp/prot.anon && [ $t -lt 100 ]; do usleep 100000; t=$((t + 1)); done
	check "$1: N holds its 32M of anon" grep -q touched /tmp/prot.anon
}
# settle ROUND GROUP: after a read, the group's reclaimed_pages (RC) and
# back-offs (UC).
settle() {
	sleep 2
	RC=$(gstat "$2" reclaimed_pages) UC=$(gstat "$2" unreclaimable)
	diag "$1 (cgroup2 $(cg2opts)): Q $(mib Q)M; $2 $(mib "$2")M, reclaimed_pages $RC, unreclaimable $UC"
}

# Rounds 1 and 2: Q/L has memory.low 100M; its child Q/L/C, the watched
# group (stop 96M, start 108M), reads 80M. With memory_recursiveprot L
# passes all of it to C, and the reclaim at Q's limit would leave C
# alone; without it, C has nothing and goes down to the stop mark.
inherit_round() {
	RC= UC= L1=
	cg2mount "$2" || { check "$1: cgroup2 remounted with '$2'" false; return; }
	mkgroup Q 128M
	cgmemchildren Q
	mkgroup Q/L
	cgmemchildren Q/L
	mkgroup Q/L/C
	echo 100M >$CG/Q/L/memory.low
	check "$1: watch Q/L/C (stop 96M, start 108M)" mbr_watch Q/L/C 32m 20m
	drop_caches
	hold_anon "$1"
	run_in Q/L/C dd if=$F of=/dev/null bs=1M count=80 2>/dev/null
	settle "$1" Q/L/C
	L1=$(mib Q/L)
	killgroup Q/N
	wait
	rmgroup Q/L/C Q/L Q/N Q
}
inherit_round "recursiveprot" "$opts_rp"
check "recursiveprot: C's group woke and backed off" test "$UC" -gt 0
expect_eq "recursiveprot: nothing was reclaimed from C" "$RC" 0
check "recursiveprot: L kept the cache C read (${L1}M)" test "$L1" -ge 79
inherit_round "no recursiveprot" "$opts0"
check "no recursiveprot: C was reclaimed ($RC pages)" test "$RC" -gt 0

# Round 3, overcommitted: Q/P has memory.low 40M; its children L1 and
# L2 claim 40M each and hold 40M each, so the kernel scales their claims
# down to P's, in proportion to what each holds: L2 (and C below it,
# which inherits L2's share) keeps u * 40 / (40 + u) of its u. So the
# kernel's reclaim at Q presses C less the lower it goes, and a turn
# stops where the room above that share is under its margin (about 3M,
# mbr_room_to_ask()): near 13M, more by what the read adds after the
# last turn. Configured values would keep all 40M; without the rule C
# goes to the stop mark (stop 64M, start 108M).
check "overcommit: cgroup2 remounted with memory_recursiveprot" \
	cg2mount "$opts_rp"
mkgroup Q 128M
cgmemchildren Q
mkgroup Q/P
cgmemchildren Q/P
mkgroup Q/P/L1
mkgroup Q/P/L2
cgmemchildren Q/P/L2
mkgroup Q/P/L2/C
echo 40M >$CG/Q/P/memory.low
echo 40M >$CG/Q/P/L1/memory.low
echo 40M >$CG/Q/P/L2/memory.low
check "overcommit: watch Q/P/L2/C (stop 64M, start 108M)" mbr_watch Q/P/L2/C 64m 20m
drop_caches
run_in Q/P/L1 dd if=$F of=/dev/null bs=1M count=40 2>/dev/null
hold_anon overcommit
run_in Q/P/L2/C dd if=$F of=/dev/null bs=1M skip=96 count=40 2>/dev/null
RC=
settle overcommit Q/P/L2/C
c=$(mib Q/P/L2/C)
diag "overcommit: L1 $(mib Q/P/L1)M, L2 $(mib Q/P/L2)M"
check "overcommit: C was reclaimed ($RC pages)" test "$RC" -gt 0
check "overcommit: but not below its shrinking share of P's protection (${c}M)" test "$c" -ge 8 -a "$c" -le 32
killgroup Q/N
wait
rmgroup Q/P/L2/C Q/P/L2 Q/P/L1 Q/P Q/N Q

# Round 4: C's own limit binds (48M; stop 16M, start 28M). The kernel's
# reclaim then starts at C and ignores all above it, so does a turn,
# memory_recursiveprot or not.
check "own limit: cgroup2 remounted with memory_recursiveprot" \
	cg2mount "$opts_rp"
RC=
mkgroup Q 128M
cgmemchildren Q
mkgroup Q/L
cgmemchildren Q/L
mkgroup Q/L/C 48M
echo 100M >$CG/Q/L/memory.low
check "own limit: watch Q/L/C (stop 16M, start 28M)" mbr_watch Q/L/C 32m 20m
drop_caches
run_in Q/L/C dd if=$F of=/dev/null bs=1M count=80 2>/dev/null
settle "own limit" Q/L/C
check "own limit: C was reclaimed ($RC pages)" test "$RC" -gt 0
rmgroup Q/L/C Q/L Q
check "the cgroup2 mount has its options back ($opts_orig)" cg2mount "$opts_orig"
check "module unloads" mbr_unload
