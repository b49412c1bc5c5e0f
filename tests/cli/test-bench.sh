#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# test-bench.sh - `make bench` still runs: a short run of bench/bench-lru
# (3 loops, a smoke test the bench does not judge) prints every figure
# once, with numbers, and a host line that is either measured or says why
# not; and the bench's verdict follows its targets on given figures
# (bench-lru --judge): each target missed is a MISS line and status 1.
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
check "a short run is not judged: status 0 and says so (got $rc)" \
	'[ $rc -eq 0 ] && grep -q "^targets not judged: a run of 3 loops is a smoke test" "$T/out" &&
	 ! grep -q "^targets met$" "$T/out" && ! grep -q "^MISS: " "$T/out"'

# every figure line, once each
for p in "machine: " "uncontended spinlock lock+unlock: " \
	"lru-microbench 4K, 1 thread x 3 loops x 16M: median " \
	"lru-microbench 4K, 1 thread, --locked-atomics " "lru-microbench 4K, 2 threads: median " \
	"lru-microbench 4K, 2 threads, --nodes 2 " "CPU time per fault+zap " \
	"lru-microbench 4K, 2 threads, --vma private " "page-fault1 4K, --mode processes: " \
	"hypervisor steal, " "machine scaling, two copies of the fixed loop " "extra CPU per fault+zap with 2 threads " \
	"the per-VMA lock's own cost " "the seed's program, 2 threads over 1 "; do
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
check "the seed's program: the model's scaling, not judged" \
	'grep -q -E "^the seed.s program, 2 threads over 1 \(a shared VMA and lruvec, not judged\): model [0-9.]+x" "$T/out"'

# the verdict on given figures: lock ns, 1-thread rate, --vma private
# --nodes 2 scaling, 2-process scaling[, the machine's own 2-CPU scaling]
"$B" --judge 20 11e6 1.7 1.8 >"$T/j" 2>&1
rc=$?
check "figures that meet every target: status 0, 'targets met', no MISS" \
	'[ $rc -eq 0 ] && grep -q "^targets met$" "$T/j" && ! grep -q "^MISS" "$T/j"'
for c in "50 11e6 1.7 1.8|MISS: lock+unlock 50.0 ns >= 50 ns" \
	"20 9.9e6 1.7 1.8|MISS: 1-thread median 9.90 M/s < 10 M/s" \
	"20 11e6 1.59 1.8|MISS: 2 threads with a VMA each on 2 nodes 1.59x < 1.60x" \
	"20 11e6 1.7 1.5|MISS: 2 processes on 2 nodes 1.50x < 1.60x" \
	"20 11e6 1.7 1.03 1.3|MISS: 2 processes on 2 nodes 1.03x < 1.04x (80% of the machine's own 1.30x)" \
	"20 11e6 1.5 1.7 1.9|MISS: 2 threads with a VMA each on 2 nodes 1.50x < 1.52x (80% of the machine's own 1.90x)"; do
	# shellcheck disable=SC2086
	"$B" --judge ${c%%|*} >"$T/j" 2>&1
	rc=$?
	check "${c#*|}: status 1, that MISS line alone, no 'targets met'" \
		'[ $rc -eq 1 ] && [ "$(grep -c "^MISS" "$T/j")" -eq 1 ] &&
		 grep -q -F -x "${c#*|}" "$T/j" && ! grep -q "^targets met$" "$T/j"'
done
# a machine whose two CPUs give 1.3x for independent loops: 80% of it, 1.04x
"$B" --judge 20 11e6 1.05 1.04 1.3 >"$T/j" 2>&1
rc=$?
check "on a machine that gives 1.3x, 1.05x and 1.04x meet the target (1.04x)" \
	'[ $rc -eq 0 ] && grep -q "^targets met$" "$T/j"'
"$B" --judge 20 11e6 1.7 1.8 2.5 >"$T/j" 2>"$T/e"
rc=$?
check "--judge with a machine scaling over 2: status 2, one line" \
	'[ $rc -eq 2 ] && [ "$(wc -l <"$T/e")" -eq 1 ]'
"$B" --judge 20 x 1.7 1.8 >"$T/j" 2>"$T/e"
rc=$?
check "--judge with a non-number: status 2, one line" '[ $rc -eq 2 ] && [ "$(wc -l <"$T/e")" -eq 1 ]'

# the host kernel: measured with its figures, or a reason why not
if grep -q "^host kernel, the same program: not measured (.\{4,\})$" "$T/out"; then
	check "host not measured: the extra-CPU line has no host figure" \
		'! grep "^extra CPU" "$T/out" | grep -q "host kernel"'
	check "host not measured: the seed's program line has no host figure" \
		'! grep "^the seed.s program" "$T/out" | grep -q "host kernel"'
else
	check "host measured: rates, CPU times and a ratio for 1 loop, 9 rounds" \
		'grep -q -E "^host kernel [^ ]+, the same program \(4K, 1 loops, 9 rounds\): 1 thread [0-9.]+ M faults\+zaps/s \([0-9]+ ns CPU\), 2 threads [0-9.]+ M/s \([0-9]+ ns CPU\); 2 threads over 1 = [0-9.]+x$" "$T/out"'
	check "host measured: the extra-CPU and seed's program lines give the host's" \
		'grep "^extra CPU" "$T/out" | grep -q -E "host kernel [-+][0-9]+ ns$" &&
		 grep "^the seed.s program" "$T/out" | grep -q -E "host kernel [0-9.]+x"'
fi
# bench-split: a 1-round smoke run prints both lines, with the XArray work
# the walks must differ by (a root walk of 3 nodes per piece forward, 17
# visits a folio backward) and the same stores, and is not judged
S=${BENCH_SPLIT:-}
if [ -n "$S" ] && [ -x "$S" ]; then
	"$S" 1 >"$T/out" 2>"$T/err"
	rc=$?
	check "bench-split smoke run: status 0, not judged" \
		'[ $rc -eq 0 ] && grep -q "^targets not judged: 1 rounds is a smoke test" "$T/out"'
	check "bench-split: forward and reverse medians and their ratio" \
		'grep -q -E "^shmem split, 1 GiB .*: forward [0-9.]+ ms, reverse [0-9.]+ ms \(medians\); reverse/forward [0-9.]+" "$T/out"'
	line=$(grep "^XArray work of one split" "$T/out")
	check "bench-split: forward visits 512 x (511 x 3 + 5), reverse 512 x (3 + 7 x 2 + 5), equal stores" \
		'echo "$line" | grep -q "forward 787456 node visits, 527872 slot stores, 4096 nodes allocated; reverse 11264 visits, 527872 stores, 4096 nodes"'
	"$S" x >"$T/out" 2>"$T/err"
	rc=$?
	check "bench-split bad argument: status 2, one line" \
		'[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && [ ! -s "$T/out" ]'
else
	n=$((n + 1)); echo "ok $n - bench-split # SKIP no bench-split program (BENCH_SPLIT)"
fi
echo "1..$n"
[ $fail -eq 0 ]
