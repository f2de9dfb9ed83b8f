# Shell helpers of the initramfs builders (tests/vm, tests/ibt): the
# kernel's own modules a guest loads. The sourcing script sets moddir,
# the kernel's /lib/modules/KREL (below its root, MBR_KROOT).

# deps NAME: the paths of module NAME and of its dependencies below
# $moddir, in load order (dependencies first), from modules.dep; nothing
# for a module built in.
# shellcheck disable=SC2154	# moddir: the sourcing script's
deps() {
	local path d
	path=$(sed -n "s@^\(\([^:]*/\)\?$1\.ko[.a-z]*\):.*@\1@p" \
		"$moddir/modules.dep" | head -n 1)
	[ -n "$path" ] || return 0	# built in
	for d in $(sed -n "s@^$path: *@@p" "$moddir/modules.dep"); do
		deps "$(basename "$d" | sed 's/\.ko.*//')"
	done
	echo "$path"
}
