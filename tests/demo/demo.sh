# make demo: the seed's two experiments at VM scale, each on the stock
# kernel without the module and then with it: (1) dd a file 4x the
# group's limit, (2) read it back with cat. One table row per run, from
# the kernel's counters (memory.stat, the memcg reclaim tracepoint) and
# the module's stat.
MB=${MBR_DEMO_MB:-512}
LIMIT=128M
F=/mnt/demo.dat
mkgroup D $LIMIT

row() {	# row EXPERIMENT MODE COMM: run "$@" (after the 3) in D
	exp=$1 mode=$2 comm=$3
	shift 3
	s0=$(mstat D pgscan) t0=$(mstat D pgsteal)
	b0=0
	mbr_loaded && b0=$(gstat D reclaimed_pages)
	trace_reclaims_start
	run_in D timeit "$@" 2>/tmp/time.out >/dev/null
	sync
	direct=$(trace_reclaims "$comm")
	trace_reclaims_stop
	bg=0
	mbr_loaded && bg=$(($(gstat D reclaimed_pages) - b0))
	set -- $(grep '^real_ns' /tmp/time.out)
	real=$2 sys=$6
	echo "DEMO| $exp | $mode | $direct | $bg | $(($(mstat D pgscan) - s0)) | $(($(mstat D pgsteal) - t0)) | $(awk -v n=$real 'BEGIN { printf "%.2f", n / 1e9 }') | $(awk -v n=$sys 'BEGIN { printf "%.2f", n / 1e9 }') | $(awk -v n=$real -v m=$MB 'BEGIN { printf "%.1f", m / (n / 1e9) }') |"
}

experiment() {	# experiment MODE
	rm -f $F
	drop_caches
	row "dd write ${MB} MiB" "$1" dd dd if=/dev/zero of=$F bs=1M count=$MB
	drop_caches
	row "cat read ${MB} MiB" "$1" cat cat $F
}

echo "DEMO| experiment | kernel | direct reclaims | background reclaimed pages | pages scanned | pages stolen | real s | sys s | MB/s |"
echo "DEMO|---|---|---:|---:|---:|---:|---:|---:|---:|"
experiment "stock"
mbr_load
mbr_watch D 24m 12m
experiment "memcg_bgreclaim"
diag "memcg_bgreclaim stat of D: $(tr '\n' ' ' <$(grp_dir D)/stat)"
rm -f $F
rmdir $CG/D
pass "demo ran"
