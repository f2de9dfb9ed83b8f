# The command line (tools/memcg-bgreclaim, statically linked) against the
# real module: rules, settings by hand, status and top, and apply as a
# diff, with FILE:LINE errors that apply nothing; exit codes.
M=memcg-bgreclaim
run_rc() {	# run_rc CMD...: run, keep its output, print its exit code
	"$@" >/tmp/cli.out 2>/tmp/cli.err
	echo $?
}
expect_eq "--help" "$(run_rc $M --help) $(grep -c '^usage:' /tmp/cli.out)" "0 1"
expect_eq "without the module: exit 3" "$(run_rc $M status)" 3
expect_eq "... with one line saying so" "$(wc -l </tmp/cli.err)" 1
check "module loads" mbr_load
mkgroup CL 200M
cgmemchildren CL
mkgroup CL/a.scope
mkgroup CL/b.slice

expect_eq "rule add" "$(run_rc $M rule add $CG/CL --ratio 80 --match '*.scope')" 0
expect_eq "rule list" "$($M rule list)" "/CL ratio=80 scale=50 match=*.scope groups=1"
expect_eq "rule list --json" "$($M rule list --json | sed 's/"id":[0-9]*/"id":N/')" \
	'[{"path":"/CL","rule":"ratio=80 scale=50 match=*.scope","id":N,"groups":1}]'
expect_eq "both forms at once: usage, exit 2" \
	"$(run_rc $M rule add /CL --ratio 80 --high 8m --low 4m)" 2
expect_eq "a missing cgroup: refused, exit 1" "$(run_rc $M rule add /nope --ratio 80)" 1
expect_eq "... in one line" "$(wc -l </tmp/cli.err)" 1
expect_eq "an unknown command: exit 2" "$(run_rc $M frobnicate)" 2

$M status --json >/tmp/st.json
check "status --json has the rule's group, by path" grep -q '"path":"/CL/a.scope"' /tmp/st.json
expect_eq "with its rule, limit and ratio marks" \
	"$(grep -o '"path":"/CL/a.scope","id":[0-9]*,"rule":"/CL","origin":"rule","limit":209715200,"usage":[0-9]*,"low_wmark":167772160,"high_wmark":166723584' /tmp/st.json | wc -l)" 1
expect_eq "status shows it with its rule" "$($M status | grep -c ' /CL/a.scope \[/CL\]$')" 1

expect_eq "set by hand (distances)" "$(run_rc $M set CL/b.slice --high 24m --low 12m)" 0
expect_eq "its marks" "$(wmark CL/b.slice low) $(wmark CL/b.slice high)" \
	"$(((200 - 12) << 20)) $(((200 - 24) << 20))"
expect_eq "set again, with a ratio" "$(run_rc $M set $CG/CL/b.slice --ratio 50 --scale 100)" 0
expect_eq "ratio marks" "$(wmark CL/b.slice low) $(wmark CL/b.slice high)" \
	"$((100 << 20)) $(((100 << 20) - (2 << 20)))"
expect_eq "and back to distances" "$(run_rc $M set CL/b.slice --high 30m --low 10m)" 0
expect_eq "distance marks again" "$(wmark CL/b.slice low)" $(((200 - 10) << 20))
expect_eq "set --auto" "$(run_rc $M set CL/b.slice --auto)" 0
expect_eq "auto marks (a quarter of the limit, half of it to start)" \
	"$(cat $(grp_dir CL/b.slice)/wmark_auto) $(wmark CL/b.slice low)" "1 $(((200 << 20) - (25 << 20)))"
expect_eq "--auto with --high: usage, exit 2" "$(run_rc $M set CL/b.slice --auto --high 8m)" 2
expect_eq "and back to distances, auto off" "$(run_rc $M set CL/b.slice --high 30m --low 10m)" 0
expect_eq "wmark_auto 0, distance marks" \
	"$(cat $(grp_dir CL/b.slice)/wmark_auto) $(wmark CL/b.slice low)" "0 $(((200 - 10) << 20))"
expect_eq "status --json: a group by hand has rule null, origin hand" \
	"$($M status --json | grep -o '"path":"/CL/b.slice","id":[0-9]*,"rule":null,"origin":"hand"' | wc -l)" 1
expect_eq "top --count 2" "$(run_rc $M top --interval 0.2 --count 2)" 0
expect_eq "top printed two tables" "$(grep -c '^LIMIT' /tmp/cli.out)" 2
expect_eq "unset" "$(run_rc $M unset CL/b.slice)" 0
expect_eq "unset again: not configured, exit 1" "$(run_rc $M unset CL/b.slice)" 1

# apply: a diff against what the module holds.
cat >/tmp/c1.conf <<EOC
# a test config
batch_pages 128
rule /CL ratio=80 match=*.scope   # unchanged
rule CL/b.slice high=24m low=12m
EOC
on0=$(mbr_stat rule_groups_online)
expect_eq "apply" "$(run_rc $M apply /tmp/c1.conf)" 0
expect_eq "reports the diff" "$(cat /tmp/cli.out)" \
	"/tmp/c1.conf: 1 rules added or changed, 0 removed, 1 unchanged"
expect_eq "global setting applied" "$(cat $MBR_SYSFS/batch_pages)" 128
expect_eq "apply again changes nothing" "$(run_rc $M apply /tmp/c1.conf) $(cat /tmp/cli.out)" \
	"0 /tmp/c1.conf: 0 rules added or changed, 0 removed, 2 unchanged"
printf 'rule /CL ratio=70\nrule /CL/b.slice ratio=900\n' >/tmp/c2.conf
expect_eq "a bad line: exit 4" "$(run_rc $M apply /tmp/c2.conf)" 4
expect_eq "the error names the file and the line" "$(cut -d: -f2,3 </tmp/cli.err)" " /tmp/c2.conf:2"
expect_eq "and nothing was applied" "$($M rule list | head -n 1)" "/CL ratio=80 scale=50 match=*.scope groups=1"
printf 'rule /CL ratio=80 match=*.scope\nrule /CL/b.slice auto=1 ratio=90\n' >/tmp/c5.conf
expect_eq "apply an auto rule" "$(run_rc $M apply /tmp/c5.conf) $(cat /tmp/cli.out)" \
	"0 /tmp/c5.conf: 1 rules added or changed, 0 removed, 1 unchanged"
expect_eq "apply it again changes nothing" "$(run_rc $M apply /tmp/c5.conf) $(cat /tmp/cli.out)" \
	"0 /tmp/c5.conf: 0 rules added or changed, 0 removed, 2 unchanged"
expect_eq "rule list shows it" "$($M rule list | tail -n 1)" "/CL/b.slice auto=1 ratio=90 groups=0"
printf 'enabled 2\n' >/tmp/c3.conf
expect_eq "a bad global value: exit 4" "$(run_rc $M apply /tmp/c3.conf)" 4
printf 'rule /CL ratio=80 match=*.scope\n' >/tmp/c4.conf
expect_eq "a rule left out is deleted" "$(run_rc $M apply /tmp/c4.conf) $(cat /tmp/cli.out)" \
	"0 /tmp/c4.conf: 0 rules added or changed, 1 removed, 1 unchanged"
mkgroup CL/c.scope
expect_eq "the kept rule configures a new container" "$($M rule list)" "/CL ratio=80 scale=50 match=*.scope groups=2"
expect_eq "from the online hook" "$(($(mbr_stat rule_groups_online) - on0))" 1
expect_eq "apply of a missing file: exit 4" "$(run_rc $M apply /tmp/none.conf)" 4
rmgroup CL/a.scope CL/b.slice CL/c.scope CL
check "module unloads" mbr_unload
