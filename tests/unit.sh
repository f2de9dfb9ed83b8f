#!/bin/sh
# Host unit tests of the module's pure logic, compiled in user space.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/unit
mkdir -p "$out"
sh "$top/tests/unit/cli.sh"
for t in "$top"/tests/unit/test_*.c; do
	name=$(basename "$t" .c)
	if ! gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$top/include" -o "$out/$name" "$t"; then
		echo "not ok - unit: $name compiles"
		continue
	fi
	"$out/$name" | grep -v '^1\.\.' || true
done
