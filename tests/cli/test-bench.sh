#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# test-bench.sh - `make bench` still runs: a short run of bench/bench-lru
# (3 loops) prints every figure once, with numbers, a verdict that agrees
# with its exit status, and a host line that is either measured or says why
# not. What the figures are is the bench's business, not this test's.
# Needs the bench program ($BENCH_LRU, set by make check); skips without it.
B=${BENCH_LRU:-}
T=$(mktemp -d)
n=0
fail=0
trap 'rm -rf "$T"' EXIT

if [ -z "$B" ] || [ ! -x "$B" ]; then
	echo "1..0 # SKIP no bench program (BENCH_LRU is set by make check)"
	exit 77
fi

ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fail=1; }
check() { if eval "$2"; then ok "$1"; else nok "$1"; fi; }

echo "1..25"

# bad arguments: one line on stderr, status 2, nothing on stdout
for a in 0 x 5a 100001; do
	"$B" "$a" >"$T/out" 2>"$T/err"
	rc=$?
	check "bad loop count '$a': status 2, one line naming it and what is accepted" \
		'[ $rc -eq 2 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" -eq 1 ] &&
		 grep -q "bad argument '"'"'$a'"'"': accepted one loop count, 1 to" "$T/err"'
done

"$B" 3 >"$T/out" 2>"$T/err"
rc=$?
check "a short run ends with status 0 or 1 (got $rc)" '[ $rc -eq 0 ] || [ $rc -eq 1 ]'

# every figure line, once each
for p in "machine: " "uncontended spinlock lock+unlock: " \
	"lru-microbench 4K, 1 thread x 3 loops x 16M: median " \
	"lru-microbench 4K, 1 thread, FL_SMP=1 " "lru-microbench 4K, 2 threads: median " \
	"lru-microbench 4K, 2 threads, --nodes 2 " "CPU time per fault+zap " \
	"lru-microbench 4K, 2 threads, --vma private " "page-fault1 4K, --mode processes: " \
	"hypervisor steal, " "extra CPU per fault+zap with 2 threads " \
	"the per-VMA lock's own cost "; do
	check "one line starting '$p'" '[ "$(grep -c -F -- "$p" "$T/out")" -eq 1 ]'
done

check "no NaN or infinite figure" '! grep -q -i -E "(^|[^a-z])(-?nan|-?inf)([^a-z]|$)" "$T/out"'

check "the extra-CPU line gives the model's, split into the shared VMA and lruvec" \
	'grep -q -E "^extra CPU .*: model [-+][0-9]+ ns \(over the locked run; the shared VMA, [^:]*: [-+][0-9]+ ns; the shared lruvec, [^:]*: [-+][0-9]+ ns\)" "$T/out"'

# the shared-line floor, and the budget 1.6x leaves: 2c / (c + x) >= 1.6
# means x <= c / 4, c the locked 1-thread CPU time per fault+zap
check "the per-VMA lock line: 1-thread op, 2-thread extra, budget" \
	'grep -q -E "^the per-VMA lock.s own cost \(.*\): 1 thread [0-9]+ ns an op, 2 threads [-+][0-9]+ ns \(median of 15 rounds\); 1.6x allows a fault\+zap \+[0-9]+ ns$" "$T/out"'
locked=$(sed -n 's/^CPU time per fault+zap .*, locked \([0-9.]*\) ns;.*/\1/p' "$T/out")
budget=$(sed -n 's/^the per-VMA lock.*1.6x allows a fault+zap +\([0-9]*\) ns$/\1/p' "$T/out")
check "the budget is a quarter of the locked CPU time ($budget of ${locked:-?} ns)" \
	'[ -n "$locked" ] && [ -n "$budget" ] &&
	 awk -v l="$locked" -v b="$budget" "BEGIN { d = l / 4 - b; exit !(d > -1 && d < 1) }"'
check "a 2-thread MISS line, if any, ends with the floor and the budget" \
	'! grep -q "^MISS: 2-thread" "$T/out" ||
	 grep "^MISS: 2-thread" "$T/out" | grep -q -E "; the per-VMA lock.s two atomics alone add [-+][0-9]+ ns here, 1.6x allows \+$budget$"'

# the verdict agrees with the status
if [ $rc -eq 0 ]; then
	check "status 0: 'targets met' and no MISS line" \
		'grep -q "^targets met$" "$T/out" && ! grep -q "^MISS: " "$T/out"'
else
	check "status 1: a MISS line and no 'targets met'" \
		'grep -q "^MISS: " "$T/out" && ! grep -q "^targets met$" "$T/out"'
fi

# the host kernel: measured with its figures, or a reason why not
if grep -q "^host kernel, the same program: not measured (.\{4,\})$" "$T/out"; then
	check "host not measured: the extra-CPU line has no host figure" \
		'! grep "^extra CPU" "$T/out" | grep -q "host kernel"'
	check "host not measured: a 2-thread MISS line has no host figure" \
		'! grep "^MISS: 2-thread" "$T/out" | grep -q "host kernel"'
else
	check "host measured: rates, CPU times and a ratio for 1 loop, 9 rounds" \
		'grep -q -E "^host kernel [^ ]+, the same program \(4K, 1 loops, 9 rounds\): 1 thread [0-9.]+ M faults\+zaps/s \([0-9]+ ns CPU\), 2 threads [0-9.]+ M/s \([0-9]+ ns CPU\); 2 threads over 1 = [0-9.]+x$" "$T/out"'
	check "host measured: the extra-CPU line gives the host's" \
		'grep "^extra CPU" "$T/out" | grep -q -E "host kernel [-+][0-9]+ ns$"'
fi
[ $fail -eq 0 ]
