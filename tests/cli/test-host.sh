#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# test-host.sh - the host target on the real kernel: counters agree with
# the rule (and with the model) within the host's measured noise, the
# workload's own counts stay right while another process churns memory,
# the lock table comes from perf lock, processes fork, and every THP knob,
# mount and cgroup is as before after a run, after SIGTERM, and after
# SIGKILL followed by `foliolab host restore`. Needs root and the THP
# sysfs folder; skips (exit 77) without them.
FL=${FOLIOLAB:-./foliolab}
THP=/sys/kernel/mm/transparent_hugepage
T=$(mktemp -d)
n=0
fail=0

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP the host target's knob tests need root"
	exit 77
fi
if [ ! -w "$THP/hugepages-16kB/enabled" ]; then
	echo "1..0 # SKIP this kernel has no writable $THP/hugepages-16kB/enabled"
	exit 77
fi

# whatever happens, leave the machine as we found it
churn=
trap '[ -n "$churn" ] && kill $churn 2>/dev/null; "$FL" host restore >/dev/null 2>&1; rm -rf "$T"' EXIT

ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; fail=1; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

# jnum FILE RESULT_INDEX NAME: a counter of one result of a JSON record
jnum() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["results"][int(sys.argv[2])][sys.argv[4]].get(sys.argv[3], 0))' "$1" "$2" "$3" "${4:-counters}"
}

# every knob, mount and foliolab cgroup (tests/host-state)
state() {
	"$(dirname "$0")/../host-state"
}

knobs_same() {
	state >"$T/after"
	if cmp -s "$T/before" "$T/after"; then
		ok "$1: every knob, mount and cgroup as before"
	else
		nok "$1: the host changed"; diff "$T/before" "$T/after" | sed 's/^/# /'
	fi
}

# within LO HI VALUE
within() { [ "$3" -ge "$1" ] && [ "$3" -le "$2" ]; }

# wait_running PID: until the run has changed everything it changes (its
# knobs, and its cgroup once the workload starts), at most 20 s
wait_running() {
	i=0
	while ! grep -q '^cgroup' "/run/foliolab/$1/restore" 2>/dev/null && [ $i -lt 200 ]; do
		sleep 0.1; i=$((i + 1))
	done
}

state >"$T/before"

# 1-3: a host run of the seed's microbenchmark: the per-size counters follow
# the rule (threads x loops x 16 MiB / 16 KiB), give or take the noise the
# report measured over an idle interval
loops=20
exp=$((2 * loops * 1024))
"$FL" run lru-microbench --target=host --threads 2 --loops $loops --mthp 16K=always \
	--json "$T/run.json" >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 0 ] && grep -q "kernel $(uname -r)" "$T/out" && grep -q "idle" "$T/out" &&
	grep -q "\"kernel_release\": \"$(uname -r)\"" "$T/run.json" &&
	grep -q '"knobs_set": \["transparent_hugepage/hugepages-16kB/enabled"\]' "$T/run.json"; then
	ok "host run reports kernel, knobs set and noise"
else
	nok "host run (exit $rc)"; sed 's/^/# /' "$T/err"
fi
got=$(jnum "$T/run.json" 0 hugepages-16kB/stats/anon_fault_alloc)
noise=$(jnum "$T/run.json" 0 hugepages-16kB/stats/anon_fault_alloc noise)
tol=$((exp / 200 + 3 * ${noise#-} + 64))
if within $exp $((exp + tol)) "$got"; then
	ok "16K anon_fault_alloc $got = $exp + background (noise $noise)"
else
	nok "16K anon_fault_alloc $got, wanted $exp..$((exp + tol))"
fi
knobs_same "after a host run"

# 4: the same with a VMA per thread (--vma private): the mappings keep
# their size and 2 MiB alignment, so the rule gives the same count
"$FL" run lru-microbench --target=host --threads 2 --loops $loops --mthp 16K=always \
	--vma private --json "$T/priv.json" >"$T/out" 2>"$T/err"
rc=$?
got=$(jnum "$T/priv.json" 0 hugepages-16kB/stats/anon_fault_alloc)
noise=$(jnum "$T/priv.json" 0 hugepages-16kB/stats/anon_fault_alloc noise)
tol=$((exp / 200 + 3 * ${noise#-} + 64))
if [ $rc -eq 0 ] && within $exp $((exp + tol)) "$got"; then
	ok "--vma private: 16K anon_fault_alloc $got = $exp + background (noise $noise)"
else
	nok "--vma private (exit $rc): 16K anon_fault_alloc $got, wanted $exp..$((exp + tol))"
	sed 's/^/# /' "$T/err"
fi

# 5-8: model and host side by side, with perf lock
touch "$T/stamp"
sleep 1
"$FL" compare lru-microbench --threads 2 --loops $loops --target=model,host --mthp 16K=always \
	--locks --json "$T/cmp.json" >"$T/out" 2>"$T/err"
rc=$?
# a 6.x host runs the order0 rule, which the default model column does not
hint=true
case $(uname -r) in 6.*) grep -q "compare like with like" "$T/out" || hint=false ;; esac
if [ $rc -eq 0 ] && grep -q "host/model" "$T/out" && grep -q "idle\[host\]" "$T/out" && $hint; then
	ok "compare --target=model,host prints both columns, a ratio, the noise and the rule hint"
else
	nok "compare --target=model,host (exit $rc)"; sed 's/^/# /' "$T/err"
fi
# An AddressSanitizer build's runtime faults in its own memory while the
# workload runs (allocator regions, stack depot: measured here about 1000
# page faults for one thread, 1550 for two, against under 20 for the
# release build), and pgfault is system-wide, so allow for that.
runtime=0
if grep -q __asan_init "$FL" 2>/dev/null; then
	runtime=2048
fi
for c in hugepages-16kB/stats/anon_fault_alloc pgfault; do
	m=$(jnum "$T/cmp.json" 0 $c)
	h=$(jnum "$T/cmp.json" 1 $c)
	hn=$(jnum "$T/cmp.json" 1 $c noise)
	tol=$((m / 200 + 3 * ${hn#-} + 64))
	[ $c = pgfault ] && tol=$((tol + runtime))
	if [ "$m" -gt 0 ] && within "$m" $((m + tol)) "$h"; then
		ok "$c: host $h agrees with model $m within the noise ($hn)"
	else
		nok "$c: host $h vs model $m (noise $hn, tolerance $tol)"
	fi
done
# spinlock contentions this kernel reports to lock:contention_begin during
# a 2-thread 16K run, which contends on the lruvec lock (thousands on the
# 6.18 kernels measured in the reference); tracefs mounted for the count
# and unmounted after, if it was not mounted before
spin_contention() {
	mounted=false
	if ! grep -q ' tracefs ' /proc/mounts; then
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null && mounted=true
	fi
	perf stat -x, -e lock:contention_begin -a -- "$FL" run lru-microbench --target=host \
		--threads 2 --loops 50 --mthp 16K=always 2>&1 >/dev/null |
		awk -F, '/contention_begin/ {print $1 + 0}'
	$mounted && umount /sys/kernel/tracing
}
if ! command -v perf >/dev/null 2>&1; then
	skip "host lock table from perf lock" "perf is not installed"
elif grep -q "lruvec->lru_lock @ folio_batch_move_lru contended" "$T/out" &&
	grep -q '"site": "folio_batch_move_lru", "kind": "spinlock", "acquired": null' "$T/cmp.json" &&
	[ -z "$(find "${HOME:-/root}/.debug" -newer "$T/stamp" 2>/dev/null)" ]; then
	ok "host lock table from perf lock, keyed by kernel caller; no build-id cache written"
elif grep -q '"locks_note": ""' "$T/cmp.json" && [ "$(spin_contention)" -lt 100 ]; then
	skip "host lock table from perf lock" \
		"this kernel reports (almost) no spinlock contention to lock:contention_begin"
else
	nok "no folio_batch_move_lru row from perf lock"; sed 's/^/# /' "$T/err"
fi

# the gate: with no tolerance at all, eight forked processes leave some
# whole-run row apart by more than 0 (which one depends on the machine and
# the build); --check turns the rows marked DIFFERS into exit 1 and one
# line that counts them
"$FL" compare page-fault1 --mode processes --threads 8 --iterations 1 --size 1M \
	--target=model,host --lru-cache order0 --check --tolerance 0 --tolerance-min 0 \
	>"$T/out" 2>"$T/err"
rc=$?
ndiff=$(grep -c " DIFFERS\$" "$T/out")
if [ $rc -eq 1 ] && [ "$ndiff" -ge 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] &&
	grep -q "^foliolab: $ndiff counters\{0,1\} of the host differs\{0,1\} from the model's (--check)" "$T/err"; then
	ok "compare --check: the $ndiff rows beyond the tolerance read DIFFERS, exit 1 and one line counts them"
else
	nok "compare --check (exit $rc)"; sed 's/^/# /' "$T/err"
fi

# forking beside the progress thread: a child gets only the forking thread
# and every lock as it was; 2 of 10 ASan runs here hung in the child's
# free() while the thread started (locks the fork took from a starting or
# printing thread). Twenty runs, each given 60 s
hung=0
for i in $(seq 20); do
	timeout -k 5 60 "$FL" run page-fault1 --target=host --mode processes --threads 8 \
		--iterations 1 --size 1M >/dev/null 2>"$T/err" </dev/null
	rc=$?
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		hung=$((hung + 1))
		sleep 1
		"$FL" host restore >/dev/null 2>&1
	elif [ $rc -ne 0 ]; then
		hung=$((hung + 100))
		sed 's/^/# /' "$T/err"
	fi
done
if [ $hung -eq 0 ]; then
	ok "20 processes-mode runs, each forking beside the progress thread, finish"
else
	nok "processes-mode runs beside the progress thread: $((hung % 100)) hung, $((hung / 100)) failed"
fi

# processes are forked children; the writes of every task count
"$FL" run page-fault1 --target=host --threads 2 --mode processes --iterations 2 --size 16M \
	--json "$T/pf.json" >"$T/out" 2>"$T/err"
rc=$?
pages=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["results"][0]["metrics"]["pages"]))' "$T/pf.json" 2>/dev/null)
if [ $rc -eq 0 ] && [ "$pages" = $((2 * 2 * 4096)) ]; then
	ok "page-fault1 --mode processes on the host writes $pages pages"
else
	nok "page-fault1 processes (exit $rc, pages $pages)"; sed 's/^/# /' "$T/err"
fi

# 10-11: another process faults memory all through the run, and the knob
# gives it 64K folios too: the workload's own counts (perf events on the
# run's processes) still follow the rule, give or take its own start-up
# (thread stacks: a few folios per thread), while the system-wide ones
# count the other process as well
python3 -c '
import mmap, time
m = mmap.mmap(-1, 32 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
while True:
    for off in range(0, len(m), 4096):
        m[off] = 1
    m.madvise(mmap.MADV_DONTNEED)
' &
churn=$!
sleep 0.3
"$FL" run lru-microbench --target=host --threads 2 --loops 13 --size 8M --mthp 64K=always \
	--json "$T/churn.json" >"$T/out" 2>"$T/err"
rc=$?
kill $churn; wait $churn 2>/dev/null; churn=
rule=$((2 * 13 * 8 * 1024 / 64))
got=$(jnum "$T/churn.json" 0 hugepages-64kB/stats/anon_fault_alloc)
sys=$(jnum "$T/churn.json" 0 system:hugepages-64kB/stats/anon_fault_alloc)
scope=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["scope"].get("hugepages-64kB/stats/anon_fault_alloc"))' "$T/churn.json")
# (an AddressSanitizer build's runtime maps memory of its own too, and gets
# 64K folios for it: measured 35 more)
tol=$((16 + runtime / 32))
if [ $rc -eq 0 ] && [ "$scope" = workload ] && within $rule $((rule + tol)) "$got" &&
	[ "$sys" -gt $((got + 100)) ]; then
	ok "64K anon_fault_alloc of the workload $got = $rule + start-up, system-wide $sys"
else
	nok "64K anon_fault_alloc $got (scope $scope, system-wide $sys), wanted $rule..$((rule + tol))"
	sed 's/^/# /' "$T/err"
fi
got=$(jnum "$T/churn.json" 0 pgfault)
sys=$(jnum "$T/churn.json" 0 system:pgfault)
tol=$((64 + runtime))
if within $rule $((rule + tol)) "$got" && [ "$sys" -gt $((got + 1000)) ]; then
	ok "pgfault of the workload $got = $rule + start-up, system-wide $sys"
else
	nok "pgfault $got (system-wide $sys), wanted $rule..$((rule + tol))"
fi

# beside a fork-and-exec loop and a memory churner, the workload's own
# pgfree is its frees alone: the gate holds it (and every scoped row)
# within the tolerance; the system-wide rows move but are not held
if [ "$runtime" -eq 0 ]; then
	"$(dirname "$0")/../load-machine" "$FL" compare page-fault1 --mode processes --threads 2 \
		--iterations 4 --size 32M --mthp 64K --lru-cache order0 --target=model,host \
		--check --tolerance-min 224 --json "$T/load.json" >"$T/out" 2>"$T/err"
	rc=$?
	v=$(python3 -c '
import json, sys
h = [r for r in json.load(open(sys.argv[1]))["results"] if r["target"] == "host"][0]
w = [w for w in h["agreement"]["rows"] if w["name"] == "pgfree"][0]
print(w["scope"], w["held"], w["model_unseen"] > 0, abs(w["host"] - w["model"]) <= w["allowed"])' \
		"$T/load.json" 2>/dev/null)
	if [ $rc -eq 0 ] && [ "$v" = "workload True True True" ]; then
		ok "beside a loaded machine: compare --check holds the run's own rows, pgfree included"
	else
		nok "compare --check beside load (exit $rc, pgfree: $v)"
		grep -E "DIFFERS|pgfree" "$T/out" | sed 's/^/# /'
	fi
else
	skip "compare --check beside a loaded machine" "a sanitizer runtime's own frees"
fi

# 12: --no-knobs changes nothing and records what the host has
"$FL" run lru-microbench --target=host --threads 1 --loops 2 --no-knobs --json "$T/nk.json" \
	>"$T/out" 2>"$T/err"
v=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print(r["knobs"]["transparent_hugepage/hugepages-16kB/enabled"], len(r["knobs_set"]))' "$T/nk.json" 2>/dev/null)
if [ "$v" = "$(sed 's/.*\[\(.*\)\].*/\1/' $THP/hugepages-16kB/enabled) 0" ]; then
	ok "--no-knobs records the host's values, none set"
else
	nok "--no-knobs recorded '$v'"; sed 's/^/# /' "$T/err"
fi

# 13-14: SIGTERM in the middle of a run, lock recording and all: the
# handler puts every knob back, unmounts and leaves its cgroup, and
# removes the JSON file's temporary
"$FL" run lru-microbench --target=host --threads 1 --loops 1000000 --mthp 16K=always --locks \
	--json "$T/term.json" >/dev/null 2>&1 &
pid=$!
wait_running $pid
made=$(ls -A "$T" | grep -c '^\.term\.json\.tmp')
kill -TERM $pid
wait $pid 2>/dev/null
if [ ! -e "/run/foliolab/$pid" ] && [ "$made" -eq 1 ] && ! ls -A "$T" | grep -q 'term\.json'; then
	ok "SIGTERM: the run folder is gone, and the JSON temporary"
else
	nok "SIGTERM left /run/foliolab/$pid or the JSON temporary (made: $made)"
	ls -A "$T" | sed 's/^/# /'
fi
knobs_same "after SIGTERM"

# 15-19: SIGKILL cannot be caught: the restore file stays, a new run
# refuses to start, and `foliolab host restore` puts everything back:
# knobs, the tracefs mount perf lock needed, the run's cgroup
"$FL" run lru-microbench --target=host --threads 1 --loops 1000000 --mthp 16K=always --locks \
	--knob transparent_hugepage/khugepaged/scan_sleep_millisecs=500 >/dev/null 2>&1 &
pid=$!
wait_running $pid
kill -KILL $pid
wait $pid 2>/dev/null
if [ -s "/run/foliolab/$pid/restore" ] && grep -q '\[always\]' $THP/hugepages-16kB/enabled &&
	grep -q "^cgroup" "/run/foliolab/$pid/restore"; then
	ok "SIGKILL leaves the knob changed, the cgroup, and the restore file"
else
	nok "no restore file after SIGKILL"; sed 's/^/# /' "/run/foliolab/$pid/restore"
fi
"$FL" run lru-microbench --target=host --threads 1 --loops 1 --mthp 64K=always >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 2 ] && grep -q "foliolab host restore" "$T/err" && [ "$(wc -l <"$T/err")" -eq 1 ]; then
	ok "a new run refuses to start over a killed one's knobs (one line, exit 2)"
else
	nok "a new run started (exit $rc)"; sed 's/^/# /' "$T/err"
fi
"$FL" host restore >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 0 ] && grep -q "restored $THP/hugepages-16kB/enabled = never" "$T/out" &&
	grep -q "removed the cgroup .*/foliolab-$pid" "$T/out"; then
	ok "foliolab host restore reports what it put back"
else
	nok "foliolab host restore (exit $rc)"; sed 's/^/# /' "$T/out" "$T/err"
fi
knobs_same "after SIGKILL and foliolab host restore"

# a tmpfs of the run's own: mounted in the run folder, gone after a SIGKILL
# and host restore, with the folder
"$FL" run shmem-split --target=host --method punch --rounds 1000 --file-size 64M \
	>/dev/null 2>&1 &
pid=$!
i=0
while ! grep -q "^mount	/run/foliolab/$pid/tmpfs" "/run/foliolab/$pid/restore" 2>/dev/null &&
	[ $i -lt 200 ]; do
	sleep 0.1; i=$((i + 1))
done
kill -KILL $pid
wait $pid 2>/dev/null
if grep -q " /run/foliolab/$pid/tmpfs[0-9]* tmpfs " /proc/mounts; then
	ok "SIGKILL leaves the run's tmpfs mounted"
else
	nok "no tmpfs of run $pid after SIGKILL"; sed 's/^/# /' "/run/foliolab/$pid/restore"
fi
"$FL" host restore >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 0 ] && grep -q "unmounted /run/foliolab/$pid/tmpfs" "$T/out" &&
	[ ! -e "/run/foliolab/$pid" ]; then
	ok "foliolab host restore unmounts the tmpfs and removes the run folder"
else
	nok "host restore of a tmpfs (exit $rc)"; sed 's/^/# /' "$T/out" "$T/err"
fi
knobs_same "after a killed tmpfs run and foliolab host restore"

# fork on the host: a forked process is a server of its own, forked by
# the workload's process (a server itself); SIGKILL of the runner takes
# them all (each dies with its parent: PR_SET_PDEATHSIG), and host restore
# puts the rest back
descendants() {
	for c in $(ps -o pid= --ppid "$1"); do
		echo "$c"; descendants "$c"
	done
}
"$FL" run fork-cow --target=host --size 512M --children 2 >/dev/null 2>&1 &
pid=$!
wait_running $pid
# until the children are forked (3 s here idle; a sanitizer build beside a
# busy machine took over 30 s): at most 120 s, while the run lives
i=0
while [ "$(descendants $pid | wc -l)" -lt 3 ] && [ $i -lt 1200 ] && kill -0 $pid 2>/dev/null; do
	sleep 0.1; i=$((i + 1))
done
tree=$(descendants $pid)
kill -KILL $pid
wait $pid 2>/dev/null
i=0
left=$tree
while [ -n "$left" ] && [ $i -lt 50 ]; do
	left=
	for c in $tree; do kill -0 "$c" 2>/dev/null && left="$left $c"; done
	[ -n "$left" ] && sleep 0.1
	i=$((i + 1))
done
"$FL" host restore >/dev/null 2>&1
if [ "$(echo "$tree" | wc -w)" -ge 3 ] && [ -z "$left" ]; then
	ok "SIGKILL of a fork-cow run: its $(echo "$tree" | wc -w) processes, forked ones too, are gone"
else
	nok "SIGKILL of a fork-cow run: processes [$(echo $tree)], left [$left]"
fi
knobs_same "after a killed fork-cow run and foliolab host restore"

# the gate on fork's own commands, over a spread of shapes (every size
# from 4K to 2M, one to four children, 1M to 64M): the whole-run rows hold
# with the default tolerance once the host's process machinery (its
# zygote's forks, the servers' start-up), run again without the workload,
# is taken out of them; the report says what was taken out. Not 2M: on
# this host's kernel (6.18.44-fc-v1300) a 2M CoW window counts more faults
# than the rule gives, with the last landed commit too (docs/fidelity.md,
# "The 2M CoW windows on 6.18.44-fc-v1300"); the conformance suite holds
# the 2M shapes' other rows
spread_bad=
spread_skip=
# a sanitizer runtime allocates and faults in the workload's own processes
# (its shadow, its allocator), which the model has no part of
grep -q -E '__(asan|tsan)_init' "$FL" 2>/dev/null && spread_skip=1
[ -z "$spread_skip" ] && for shape in "cow-reuse --mthp 4K --size 1M" "cow-reuse --mthp 16K --size 64M" \
	"cow-reuse --mthp 32K --size 8M" "cow-reuse --mthp 64K --size 1M" \
	"fork-cow --mthp 4K --size 8M --children 4" \
	"fork-cow --mthp 16K --size 1M --children 3" "fork-cow --mthp 32K --size 64M --children 2" \
	"fork-cow --mthp 64K --size 1M --children 4"; do
	# shellcheck disable=SC2086
	"$FL" compare $shape --lru-cache order0 --target=model,host --check \
		--json "$T/spread.json" >"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc -ne 0 ] || ! grep -q "^host machinery \[host\]: the run's [0-9]* process steps" "$T/out"; then
		spread_bad="$spread_bad [$shape: exit $rc$(grep DIFFERS "$T/out" | awk '{printf ", %s %s/%s", $1, $2, $3}')]"
	fi
done
if [ -n "$spread_skip" ]; then
	skip "compare cow-reuse/fork-cow --check over 8 shapes" \
		"a sanitizer runtime faults and allocates in the workload's processes"
elif [ -z "$spread_bad" ]; then
	ok "compare cow-reuse/fork-cow --check over 8 shapes (4K..64K, 1..4 children, 1M..64M): exit 0, the machinery taken out and said"
else
	nok "compare cow-reuse/fork-cow --check:$spread_bad"
fi

# vm sysctls as knobs: set for the run (the record's knobs show them in
# force), put back after it
"$FL" run page-fault1 --target=host --size 4M --iterations 1 --knob vm/swappiness=100 \
	--knob vm/watermark_scale_factor=20 --json "$T/vm.json" >"$T/out" 2>"$T/err"
rc=$?
got=$(python3 -c 'import json,sys; k=json.load(open(sys.argv[1]))["results"][0]["knobs"]; print(k.get("vm/swappiness"), k.get("vm/watermark_scale_factor"))' "$T/vm.json" 2>/dev/null)
if [ $rc -eq 0 ] && [ "$got" = "100 20" ]; then
	ok "--knob vm/swappiness=100 --knob vm/watermark_scale_factor=20 on the host: in force for the run"
else
	nok "vm knobs on the host (exit $rc): '$got'"; sed 's/^/# /' "$T/err"
fi
knobs_same "after a run with vm knobs"

# --swap zram:SIZE: the host's zram0 as swap for the run, put back after
# it, after SIGKILL by host restore; refused, changing nothing, where zram0
# is missing or in use or the host swaps elsewhere (fake sysfs folders)
if [ -w /sys/block/zram0/disksize ] && [ "$(cat /sys/block/zram0/disksize)" = 0 ] &&
	[ "$(awk 'NR > 1' /proc/swaps | wc -l)" -eq 0 ]; then
	"$FL" run pageout --target=host --swap zram:64M --size 4M --rounds 1 --json "$T/po.json" \
		>"$T/out" 2>"$T/err"
	rc=$?
	got=$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["results"][0]["counters"]; print(c.get("pageout:pswpout",0), c.get("swapin:pswpin",0), c.get("fl_tag_mismatch",0))' "$T/po.json" 2>/dev/null)
	if [ $rc -eq 0 ] && [ "$got" = "1024 1024 0" ] && grep -q 'swap on zram 64M' "$T/out"; then
		ok "pageout --swap zram:64M on the host: 1024 pages out and back, tags right"
	else
		nok "pageout --swap on the host (exit $rc): $got"; sed 's/^/# /' "$T/err"
	fi
	knobs_same "after a run with --swap"
	"$FL" run pageout --target=host --swap zram:256M --size 64M --rounds 1000 >/dev/null 2>&1 &
	pid=$!
	i=0
	while ! grep -q '^/dev/zram0' /proc/swaps && [ $i -lt 200 ]; do
		sleep 0.1; i=$((i + 1))
	done
	sleep 0.3
	kill -KILL $pid
	wait $pid 2>/dev/null
	if grep -q "^swap	/dev/zram0	/sys/block/zram0/reset" "/run/foliolab/$pid/restore" &&
		grep -q '^/dev/zram0' /proc/swaps; then
		ok "SIGKILL leaves zram0 swapped on, and the restore file says so"
	else
		nok "no swap line after SIGKILL"; sed 's/^/# /' "/run/foliolab/$pid/restore"
	fi
	"$FL" host restore >"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc -eq 0 ] && grep -q "swapped off and reset /dev/zram0 (run $pid)" "$T/out"; then
		ok "foliolab host restore swaps zram0 off and resets it"
	else
		nok "host restore of swap (exit $rc)"; sed 's/^/# /' "$T/out" "$T/err"
	fi
	knobs_same "after a killed --swap run and foliolab host restore"
else
	skip "pageout --swap on the host" "zram0 missing, in use, or the host swaps already"
	skip "after a run with --swap" "as above"
	skip "SIGKILL of a --swap run" "as above"
	skip "host restore of swap" "as above"
	skip "after host restore of swap" "as above"
fi
# --memcg-max: the run's own memory cgroup gets the limit (cgroup v1:
# memory.limit_in_bytes; v2: memory.max), 16 MiB written twice into 8 MiB
# reclaims at least the 8 MiB that cannot stay, to zram, and every tag
# comes back; the cgroup goes with the run. cgroup v1 has no memory.high.
if [ -w /sys/block/zram0/disksize ] && [ "$(cat /sys/block/zram0/disksize)" = 0 ] &&
	[ "$(awk 'NR > 1' /proc/swaps | wc -l)" -eq 0 ]; then
	"$FL" run page-fault1 --target=host --threads 2 --size 16M --iterations 2 \
		--memcg-max 8M --swap zram:64M >"$T/out" 2>"$T/err"
	rc=$?
	out=$(awk '$1 == "pswpout" { print $2 }' "$T/out")
	if [ $rc -eq 0 ] && [ -n "$out" ] && [ "$out" -ge 2048 ] &&
		grep -q "^  memcg: memory.max 8M, memory.high max, peak " "$T/out" &&
		grep -q "data check: 16384 page tags read back, 0 wrong" "$T/out"; then
		ok "page-fault1 --memcg-max 8M on the host: $out pages swapped out, tags right"
	else
		nok "page-fault1 --memcg-max 8M on the host (exit $rc): pswpout '$out'"
		sed 's/^/# /' "$T/err"
	fi
	knobs_same "after a run with --memcg-max"
	# --press memcg: the run's cgroup asked to reclaim the 4 MiB (v2:
	# memory.reclaim; v1: its limit lowered by 4 MiB below the usage, then
	# put back): the 512 pages still clean since MADV_FREE are dropped
	"$FL" run lazyfree --target=host --size 4M --redirty 50 --rounds 1 --press memcg \
		--swap zram:64M >"$T/out" 2>"$T/err"
	rc=$?
	freed=$(awk '$1 == "press:pglazyfreed" { print $2 }' "$T/out")
	if [ $rc -eq 0 ] && [ "$freed" = 512 ] &&
		grep -q "data check: 1024 page tags read back, 0 wrong" "$T/out"; then
		ok "lazyfree --press memcg on the host: the 512 clean pages dropped, tags right"
	else
		nok "lazyfree --press memcg on the host (exit $rc): pglazyfreed '$freed'"
		sed 's/^/# /' "$T/err"
	fi
	knobs_same "after lazyfree --press memcg"
	# memcg-build on the host: 4 processes of 2 jobs in a memcg of 16 MiB
	"$FL" run memcg-build --target=host --threads 4 --jobs 2 --memcg-max 16M \
		--swap zram:128M >"$T/out" 2>"$T/err"
	rc=$?
	out=$(awk '$1 == "pswpout" { print $2 }' "$T/out")
	if [ $rc -eq 0 ] && grep -q "^  result: jobs 8, " "$T/out" && [ -n "$out" ] &&
		[ "$out" -gt 0 ] && grep -Eq "data check: [1-9][0-9]* page tags read back, 0 wrong" "$T/out"; then
		ok "memcg-build on the host in 16 MiB: 8 jobs, $out pages swapped out, tags right"
	else
		nok "memcg-build on the host (exit $rc): pswpout '$out'"; sed 's/^/# /' "$T/err"
	fi
	knobs_same "after memcg-build"
else
	skip "page-fault1 --memcg-max on the host" "zram0 missing, in use, or the host swaps already"
	skip "after a run with --memcg-max" "as above"
	skip "lazyfree --press memcg on the host" "as above"
	skip "after lazyfree --press memcg" "as above"
	skip "memcg-build on the host" "as above"
	skip "after memcg-build" "as above"
fi
if mountpoint -q /sys/fs/cgroup/memory 2>/dev/null; then
	"$FL" run page-fault1 --target=host --memcg-high 64M --size 4M --iterations 1 \
		>"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && ! [ -s "$T/out" ] &&
		grep -q "needs cgroup v2's memory.high" "$T/err"; then
		ok "--memcg-high on a cgroup v1 host: exit 2, the reason on one line"
	else
		nok "--memcg-high on a cgroup v1 host (exit $rc)"; sed 's/^/# /' "$T/err"
	fi
else
	skip "--memcg-high on a cgroup v1 host" "the host's memory cgroup is v2"
fi
mkdir -p "$T/zram"
echo 1073741824 >"$T/zram/disksize"
: >"$T/zram/reset"
FOLIOLAB_HOST_ZRAM="$T/zram" "$FL" run pageout --target=host --swap zram:64M --size 4M \
	>"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'zram0 is in use' "$T/err" &&
	[ ! -s "$T/out" ]; then
	ok "--swap refused where zram0 has a disk already (one line, exit 2)"
else
	nok "--swap over a used zram0 (exit $rc)"; sed 's/^/# /' "$T/err"
fi
echo 0 >"$T/zram/disksize"
printf 'Filename\tType\tSize\tUsed\tPriority\n/swapfile file 1024 0 -2\n' >"$T/swaps"
FOLIOLAB_HOST_ZRAM="$T/zram" FOLIOLAB_HOST_SWAPS="$T/swaps" "$FL" run pageout --target=host \
	--swap zram:64M --size 4M >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'swaps to /swapfile already' "$T/err"; then
	ok "--swap refused where the host swaps elsewhere too"
else
	nok "--swap beside other swap (exit $rc)"; sed 's/^/# /' "$T/err"
fi
FOLIOLAB_HOST_ZRAM="$T/nozram" "$FL" run pageout --target=host --swap zram:64M --size 4M \
	>"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 2 ] && grep -q 'this kernel has no' "$T/err"; then
	ok "--swap refused where the kernel has no zram0"
else
	nok "--swap without zram0 (exit $rc)"; sed 's/^/# /' "$T/err"
fi
knobs_same "after the refused --swap runs"

# debugfs's split_huge_pages: written where the kernel allows it; refused
# with the kernel's reason where it does not (lockdown); debugfs unmounted
"$FL" run shmem-split --target=host --rounds 1 --file-size 4M >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 0 ] && grep -q "thp_split_page *2 " "$T/out"; then
	ok "split_huge_pages on the host split both folios"
elif [ $rc -eq 1 ] && grep -q "FAILED: shmem-split failed: refused by the kernel: /sys/kernel/debug/split_huge_pages" "$T/out"; then
	ok "split_huge_pages refused by the kernel, and the report says why"
else
	nok "split_huge_pages on the host (exit $rc)"; sed 's/^/# /' "$T/out" "$T/err"
fi
knobs_same "after a split_huge_pages attempt"

# the pid form, from anon-split: split where debugfs is writable, else refused
"$FL" run anon-split --target=host --mthp 64K=always --size 4M --rounds 1 >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 0 ] && grep -q "split:hugepages-64kB/stats/split *64 " "$T/out"; then
	ok "split_huge_pages pid form on the host split all 64 folios"
elif [ $rc -eq 1 ] && grep -q "FAILED: anon-split failed: refused by the kernel: /sys/kernel/debug/split_huge_pages" "$T/out"; then
	ok "split_huge_pages pid form refused by the kernel, and the report says why"
else
	nok "anon-split on the host (exit $rc)"; sed 's/^/# /' "$T/out" "$T/err"
fi
knobs_same "after an anon-split attempt"

# fragment: a small fill (64 MiB of mixed order-0 pages, every other one
# freed) and 16 MiB of 2M faults: 8 faults, every page's tag read back, the
# tmpfs gone and the knobs as before; a run that would hold over 70% of
# MemAvailable is refused before anything runs
"$FL" run fragment --target=host --fill-size 64M --fault-size 16M --mthp 2M \
	--json "$T/fr.json" >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 0 ] && [ "$(jnum "$T/fr.json" 0 2048kB_faults metrics)" = "8" ] &&
	[ "$(jnum "$T/fr.json" 0 fl_tag_mismatch)" = "0" ] &&
	[ "$(jnum "$T/fr.json" 0 fl_tag_checked)" -gt 0 ] &&
	! grep -q "/foliolab/[0-9]*/tmpfs" /proc/mounts; then
	ok "fragment on the host: 8 faults of 2M, tags right, the tmpfs gone"
else
	nok "fragment on the host (exit $rc)"; sed 's/^/# /' "$T/out" "$T/err" | tail -5
fi
"$FL" run fragment --target=host --fill 0.85 >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && ! [ -s "$T/out" ] &&
	grep -q "fragment on the host would hold .* over 70% of MemAvailable" "$T/err"; then
	ok "fragment on the host over 70% of MemAvailable: refused before anything runs"
else
	nok "fragment over 70% of MemAvailable (exit $rc)"; sed 's/^/# /' "$T/err"
fi
knobs_same "after the fragment runs"

# foliolab calibrate: a cost file with its provenance, the check printed at
# the end (each row within 15% or marked OUTSIDE: this machine's noise
# decides which, so either exit status is accepted), the file usable by a
# sim run, and the host as before. A sanitizer build's sim runs take too
# long for it.
if grep -q -E '__(asan|tsan)_init' "$FL" 2>/dev/null; then
	skip "foliolab calibrate" "a sanitizer build"
	skip "after calibrate" "a sanitizer build"
	skip "calibrate --collect" "a sanitizer build"
	skip "after calibrate --collect" "a sanitizer build"
else
	# every cost, as many as a shipped cost file (all of them) has
	ncosts=$(grep -c '^cost\.' "$(dirname "$0")/../../costs/pvm-epyc2.costs")
	# symbolic links planted at the first temporary names calibrate would
	# use (its private folder under TMPDIR, the cost file's temporary) lead
	# to a folder and a file of the test's: nothing may be written through
	# them (the shell's pid is calibrate's after exec)
	mkdir -p "$T/ctmp" "$T/victim"
	: >"$T/victim/file"
	sh -c 'for n in 0 1 2; do
		ln -s "$1/victim" "$1/ctmp/foliolab-calibrate.$$.$n"
		ln -s "$1/victim/file" "$1/.c.costs.tmp.$$.$n"
	done
	exec env TMPDIR="$1/ctmp" "$2" calibrate --out "$1/c.costs"' sh "$T" "$FL" \
		>"$T/out" 2>"$T/err"
	rc=$?
	planted_ok=false
	[ -z "$(ls -A "$T/victim" | grep -v '^file$')" ] && [ ! -s "$T/victim/file" ] &&
		[ "$(find "$T/ctmp" -mindepth 1 ! -type l | wc -l)" -eq 0 ] &&
		[ "$(find "$T/ctmp" "$T" -maxdepth 1 -type l | wc -l)" -eq 6 ] && planted_ok=true
	# each condition by itself, so that a failure names the one that failed
	why=
	[ $rc -le 1 ] || why="$why exit $rc;"
	$planted_ok || why="$why the planted links or the folder behind them changed;"
	grep -q "^provenance.kernel $(uname -r | cut -c1-63)$" "$T/c.costs" 2>/dev/null ||
		why="$why no provenance.kernel line;"
	grep -q "^provenance.command foliolab calibrate --out" "$T/c.costs" 2>/dev/null ||
		why="$why no provenance.command line;"
	[ "$(grep -c '^cost\.' "$T/c.costs" 2>/dev/null)" = "$ncosts" ] ||
		why="$why not $ncosts costs;"
	[ "$(getconf _NPROCESSORS_ONLN)" -lt 2 ] ||
		[ "$(grep -c '^bandwidth\.[0-9]' "$T/c.costs" 2>/dev/null)" -ge 2 ] ||
		why="$why fewer than 2 bandwidth points;"
	grep -Eq "^  [0-9] of 8 within 15%" "$T/out" || why="$why no 'N of 8 within 15%' line;"
	[ "$(grep -Ec '^  (lru-microbench|page-fault1) ' "$T/out")" -eq 8 ] ||
		why="$why not 8 check rows;"
	if [ -z "$why" ]; then
		"$FL" run lru-microbench --threads 2 --loops 2 --size 1M --costs "$T/c.costs" \
			>"$T/run" 2>&1 && grep -q "costs $T/c.costs" "$T/run" ||
			why="$why the sim run with the file failed;"
	fi
	if [ -z "$why" ]; then
		ok "foliolab calibrate writes a cost file, prints its check, and a sim run uses it;" \
			"nothing through the links planted at its temporary names, nothing left"
	else
		nok "foliolab calibrate:$why"
		sed 's/^/# err: /' "$T/err" | tail -20
		sed 's/^/# out: /' "$T/out" | tail -40
		[ -s "$T/run" ] && sed 's/^/# run: /' "$T/run" | tail -10
		ls -la "$T/ctmp" "$T/victim" | sed 's/^/# /'
		echo "# (foliolab calibrate failed:$why)"
	fi
	find "$T" -maxdepth 2 -type l -delete
	knobs_same "after calibrate"

	# calibrate --collect: a bundle in a new folder that validate reads:
	# the calibration, machine.txt, the host runs at 1, 2, 4 .. all CPUs for
	# 4K and 16K, the lock runs, the manifest; the host as before
	ncpu=$(getconf _NPROCESSORS_ONLN)
	nt=1
	t=1
	while [ $((t * 2)) -lt "$ncpu" ]; do t=$((t * 2)); nt=$((nt + 1)); done
	[ "$ncpu" -gt 1 ] && nt=$((nt + 1))
	"$FL" calibrate --collect "$T/bundle" >"$T/out" 2>"$T/err"
	rc=$?
	nrec=$(ls "$T/bundle/records" 2>/dev/null | grep -c '^lru-[0-9]*K-[0-9]*\.json$')
	nlock=$(ls "$T/bundle/records" 2>/dev/null | grep -c "^lru-locks-[0-9]*K-$ncpu\.json$")
	# each condition in turn; the first that fails is named
	why=""
	[ $rc -le 1 ] || why="exit $rc"
	[ -n "$why" ] || [ "$nrec" -eq $((2 * nt)) ] && [ "$nlock" -eq 2 ] || why="${why:-records}"
	[ -n "$why" ] || [ -s "$T/bundle/records/lru-16K-$ncpu.json" ] || why="no lru-16K-$ncpu.json"
	[ -n "$why" ] || [ "$(grep -c '^cost\.' "$T/bundle/calibrate.costs")" -eq "$ncosts" ] ||
		why="not $ncosts costs"
	[ -n "$why" ] || [ "$ncpu" -lt 2 ] ||
		[ "$(grep -c '^bandwidth\.[0-9]' "$T/bundle/calibrate.costs")" -ge 2 ] || why="bandwidth curve"
	[ -n "$why" ] || grep -q "^cpus online: $ncpu$" "$T/bundle/machine.txt" || why="machine.txt"
	[ -n "$why" ] ||
		grep -q "^records/lru-4K-1.json: lru-microbench on the host, 1 thread," "$T/bundle/manifest.txt" &&
		! grep -q "^# incomplete" "$T/bundle/manifest.txt" || why="${why:-manifest}"
	[ -n "$why" ] || "$FL" validate "$T/bundle" --costs "$T/bundle/calibrate.costs" >"$T/val" 2>&1 ||
		why="validate exit $?"
	[ -n "$why" ] || grep -q "^validate: $((2 * nt + 2)) host records from $T/bundle" "$T/val" ||
		why="validate's record count"
	[ -n "$why" ] || grep -q '^run\.A lru-microbench ' "$T/bundle/calibrate.measured" ||
		why="calibrate.measured"
	if [ -z "$why" ]; then
		"$FL" calibrate --fit "$T/bundle" --out "$T/refit.costs" >/dev/null 2>&1
		frc=$?
		[ $frc -le 1 ] || why="--fit exit $frc"
	fi
	[ -n "$why" ] ||
		[ "$(grep -v '^# fitted:' "$T/refit.costs")" = "$(cat "$T/bundle/calibrate.costs")" ] ||
		why="--fit of the bundle differs: $(diff "$T/bundle/calibrate.costs" "$T/refit.costs" | grep '^[<>] [a-z]' | head -4 | tr '\n' ' ')"
	if [ -z "$why" ]; then
		ok "calibrate --collect: a bundle of $((2 * nt + 2)) records, the calibration with its" \
			"bandwidth curve, its measurements (--fit of the bundle gives the same cost" \
			"file) and the manifest; validate reads it"
	else
		nok "calibrate --collect (exit $rc, $nrec + $nlock records): $why"
		sed 's/^/# /' "$T/out" "$T/err" "$T/val" "$T/bundle/manifest.txt" 2>/dev/null | tail -30
	fi
	knobs_same "after calibrate --collect"
fi

# deferred-split: every 64K folio queued (the queue window is the kernel's
# own count); the shrinker runs where debugfs's shrinker files exist and
# may be written, and the note says why where they do not
"$FL" run deferred-split --target=host --mthp 64K=always --size 4M --threads 1 \
	>"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 0 ] && grep -q "queue:hugepages-64kB/stats/split_deferred *64 " "$T/out" &&
	{ grep -q "result: folios 64, queued 64, scans 1, left 0" "$T/out" ||
		grep -q "note: shrinker .*not run: " "$T/out"; }; then
	ok "deferred-split on the host: 64 queued; shrinker run or its absence said"
else
	nok "deferred-split on the host (exit $rc)"; sed 's/^/# /' "$T/out" "$T/err"
fi
knobs_same "after a deferred-split run"

# khugepaged on the host: its CPU time and its scan results (a system-wide
# tracepoint event per result and CPU, named as the model names them)
# while three processes ask it for 4 MiB each; tracefs mounted only for
# the moment it takes to open them
"$FL" run khugepaged-lazyfree --target=host --size 4M --passes 0 --seconds 2 \
	--knob transparent_hugepage/khugepaged/scan_sleep_millisecs=100 --json "$T/kl.json" \
	>"$T/out" 2>"$T/err"
rc=$?
got=$(python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["results"][0]["counters"]
r = json.load(open(sys.argv[1]))["results"][0]
m = r["metrics"]
scans = sum(v for k, v in c.items() if k.startswith("fl_scan_"))
# the seed figures for each hot task; dTLB-load-misses counted, or a note saying why not
tlb = all(t + "_dtlb_load_misses" in m for t in ("hot1", "hot2")) or \
      "dTLB-load-misses not counted: perf_event_open" in r["note"]
seed = all(m.get(t + "_access_ms", 0) > 0 and m.get(t + "_maccesses_per_s", 0) > 0 for t in ("hot1", "hot2"))
print(int("fl_khugepaged_ns" in c), int("fl_scan_succeeded" in c and "fl_scan_lack_referenced_page" in c), int(scans > 0), int(tlb), int(seed))
' "$T/kl.json" 2>/dev/null)
if [ $rc -eq 0 ] && [ "$got" = "1 1 1 1 1" ] && ! grep -q "no khugepaged scan results" "$T/err"; then
	ok "khugepaged-lazyfree on the host: khugepaged's CPU time and scan results counted, the hot tasks' access time and dTLB-load-misses (or why not)"
elif [ $rc -eq 0 ] && grep -q "no khugepaged scan results" "$T/err"; then
	skip "khugepaged's scan results on the host" "$(head -1 "$T/err")"
else
	nok "khugepaged-lazyfree on the host (exit $rc): $got"; sed 's/^/# /' "$T/err"
fi
knobs_same "after a khugepaged-lazyfree run"

# without root: one line, exit 2, nothing changed
if command -v setpriv >/dev/null 2>&1; then
	setpriv --reuid=65534 --regid=65534 --clear-groups env FOLIOLAB_RUNDIR="$T/nobody" \
		"$FL" run lru-microbench --target=host --threads 1 --loops 1 --mthp 16K=always \
		>"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q "needs root" "$T/err" && [ "$(wc -l <"$T/err")" -eq 1 ] &&
		state | cmp -s "$T/before" -; then
		ok "without root: one line, exit 2, no knob changed"
	else
		nok "without root (exit $rc)"; sed 's/^/# /' "$T/err"
	fi
else
	skip "without root" "setpriv is not installed"
fi
echo "1..$n"
exit $fail
