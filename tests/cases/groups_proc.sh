# /proc/memcg_bgreclaim/groups read while groups come and go. A
# seq_file starts its walk again at each read() that finds its buffer
# empty, a page of records at a time: a walk that found its place by
# counting records from the start skipped a group, or listed one twice,
# whenever a group before it had gone or come since the last read.
# Each round reads the file in two parts through one open file: a page
# (dd), then, after a group listed in that page is removed (or a new
# group is made), the rest (cat). Every group must be listed once: the
# removed one in the page read before it went.
N=${MBR_PROC_GROUPS:-300}
R=${MBR_PROC_ROUNDS:-10}
P=/proc/memcg_bgreclaim/groups
check "module loads" mbr_load
mkgroup GP 256M
cgmemchildren GP
expect_eq "a rule on GP" "$(wr $MBR_SYSFS/rule_add "$CG/GP ratio=90")" OK
i=1
while [ $i -le $N ]; do mkdir $CG/GP/s$i; i=$((i + 1)); done
# steady FILE: the lines of the groups GP/s* in FILE.
steady() { awk '$NF ~ /^\/GP\/s[0-9]+$/' "$1"; }
# Groups beyond the online probe's spares are configured by a work item.
t=0
while [ "$(steady $P | wc -l)" != $N ] && [ $t -lt 100 ]; do
	usleep 100000
	t=$((t + 1))
done
expect_eq "the rule configured the $N groups" "$(steady $P | wc -l)" $N
# listed PATH: is a group of PATH in the file now?
listed() { awk -v p="$1" '$NF == p { f = 1 } END { exit !f }' $P; }
bad=0 r=1 live=$N
while [ $r -le $R ]; do
	exec 3<$P
	dd bs=4096 count=1 <&3 >/tmp/gp.a 2>/dev/null
	if [ $((r % 2)) = 1 ]; then
		# Remove the first steady group of the page read.
		what=$(steady /tmp/gp.a | awk '{ print $NF; exit }')
		rmdir "$CG$what"
		t=0
		while listed "$what" && [ $t -lt 50 ]; do usleep 100000; t=$((t + 1)); done
		listed "$what" && diag "round $r: $what still listed after 5 s"
	else
		# A new group; it may hash before the place the read stopped.
		what=/GP/n$r
		mkdir "$CG$what"
		t=0
		while ! listed "$what" && [ $t -lt 50 ]; do usleep 100000; t=$((t + 1)); done
	fi
	cat <&3 >/tmp/gp.b
	exec 3<&-
	cat /tmp/gp.a /tmp/gp.b >/tmp/gp.r
	got=$(steady /tmp/gp.r | awk '{ n++; if (!seen[$NF]++) d++ }
		END { print n + 0, d + 0 }')
	twice=$(awk '!/^#/ && seen[$1]++' /tmp/gp.r | wc -l)
	if [ "$got" != "$live $live" ] || [ "$twice" != 0 ]; then
		bad=$((bad + 1))
		diag "round $r ($what): $got (lines, distinct) of the $live steady groups; $twice ids twice"
	fi
	case $what in /GP/s*) live=$((live - 1)) ;; esac
	r=$((r + 1))
done
rm -f /tmp/gp.a /tmp/gp.b /tmp/gp.r
expect_eq "rounds whose read skipped or repeated a group" "$bad" 0
expect_eq "rule removed" "$(wr $MBR_SYSFS/rule_del "$CG/GP")" OK
for d in $CG/GP/*/; do rmdir "$d"; done
check "GP removed" rmgroup GP
check "module unloads" mbr_unload
