#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# test-platform-layers.sh - platform/'s files call each other one way only
# (issue 34): tests/platform-layers finds no cycle among the object files
# of the build that made $FOLIOLAB, and does find one planted among three
# small objects (a -> b -> c -> a), naming its files, with status 1; no
# file outside platform/sim/ touches the simulator's state of a lock.
# Skips without the build's objects or a C compiler.
here=$(cd "$(dirname "$0")/../.." && pwd)
P=${FOLIOLAB:-}
T=$(mktemp -d)
n=0
fail=0
trap 'rm -rf "$T"' EXIT

ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fail=1; }
check() { if eval "$2"; then ok "$1"; else nok "$1"; fi; }

dir=$(dirname "$(readlink -f "${P:-/nonexistent}")")/src/platform
if [ -z "$P" ] || [ ! -d "$dir" ]; then
	echo "1..0 # SKIP no build objects (FOLIOLAB is set by make check)"
	exit 77
fi
cc=${CC:-cc}
if ! command -v "$cc" >/dev/null 2>&1; then
	echo "1..0 # SKIP no C compiler ($cc)"
	exit 77
fi

"$here/tests/platform-layers" "$dir" >"$T/out" 2>&1
rc=$?
check "the build's platform/ has no cycle of calls (status $rc: $(cat "$T/out"))" \
	'[ $rc -eq 0 ] && grep -q "no cycle" "$T/out"'
check "both platforms' files are among them" \
	'[ -n "$(find "$dir/native" -name "*.o")" ] && [ -n "$(find "$dir/sim" -name "*.o")" ]'

# the simulator's state is its own: outside sim/, only the initialisers clear it
grep -rn -E "(\.|->)sim\.(line|free_at|free_gen|handoff|readers|writer|q|st)\b|&[a-z]+->sim\b" \
	"$here/src" --include=*.c --include=*.h | grep -v "^$here/src/platform/sim/" |
	grep -v -E "memset\(&(l|sem)->sim, 0, sizeof\((l|sem)->sim\)\)" >"$T/grep"
check "no file outside platform/sim touches a lock's simulator state ($(head -3 "$T/grep"))" \
	'[ ! -s "$T/grep" ]'

# a planted cycle, in a subfolder as the platforms are
mkdir -p "$T/p/sub"
printf 'int b(void);\nint a(void) { return b() + 1; }\n' >"$T/a.c"
printf 'int c(void);\nint b(void) { return c() + 1; }\n' >"$T/b.c"
printf 'int a(void);\nint c(void) { return a() + 1; }\nint d(void) { return 4; }\n' >"$T/c.c"
printf 'int d(void);\nint e(void) { return d(); }\n' >"$T/e.c"
for f in a b c e; do "$cc" -c -o "$T/p/$f.o" "$T/$f.c" || nok "compile $f.c"; done
mv "$T/p/c.o" "$T/p/sub/c.o"
NM=nm "$here/tests/platform-layers" "$T/p" >"$T/out" 2>&1
rc=$?
check "a planted cycle is found: status 1, its three files named (got $rc: $(cat "$T/out"))" \
	'[ $rc -eq 1 ] && grep -q "a cycle" "$T/out" && grep -q "sub/c" "$T/out" &&
	 grep -q " a " "$T/out" && grep -q " b " "$T/out" && ! grep -q " e " "$T/out"'
rm "$T/p/sub/c.o"
NM=nm "$here/tests/platform-layers" "$T/p" >"$T/out" 2>&1
rc=$?
check "without the third file there is no cycle (got $rc: $(cat "$T/out"))" \
	'[ $rc -eq 0 ] && grep -q "no cycle" "$T/out"'

echo "1..$n"
exit $fail
