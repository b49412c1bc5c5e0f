#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# test-conformance.sh - the model against the host kernel, scenario by
# scenario (tests/conformance/scenarios): `foliolab compare
# --target=model,host` must find every deterministic counter in agreement,
# but for the ones a scenario lists as known (their difference and cause
# are in docs/fidelity.md), and both sides must read every tag back right.
#
# Which rows are held: a row whose host value counts the run alone (perf
# events, the run's memory cgroup: no `sys` mark) is held always. A row
# the host counts for the whole machine moves with whatever else runs
# there; `make check` reports it and holds it not, `make conformance`
# (CONFORMANCE_SYSTEM=1) holds it too.
#
# Noise against a difference: a scenario where a held row differs is run
# again, up to CONFORMANCE_TRIES times in all (default 3), and fails only
# when some row differs the same way (host above, or below, the model's
# value, beyond the allowed band, which already holds 3 x the idle
# interval's noise) in every run. A failed run, a wrong tag or a missing
# agreement fails at once.
#
# Needs root and the mTHP sysfs knobs; skips (exit 77) without them.
# CONFORMANCE_KEEP=DIR keeps each scenario's last JSON record there;
# CONFORMANCE_ONLY="name ..." runs only those scenarios.
FL=${FOLIOLAB:-./foliolab}
HERE=$(dirname "$0")
SCEN=${SCENARIOS:-$HERE/../conformance/scenarios}
THP=/sys/kernel/mm/transparent_hugepage
TRIES=${CONFORMANCE_TRIES:-3}
SYSTEM=${CONFORMANCE_SYSTEM:-0}

if [ "$(id -u)" -ne 0 ]; then
	echo "1..0 # SKIP the host target needs root to set the mTHP knobs"
	exit 77
fi
if [ ! -w "$THP/hugepages-16kB/enabled" ]; then
	echo "1..0 # SKIP this kernel has no writable $THP/hugepages-16kB/enabled"
	exit 77
fi
if grep -q -E '__(asan|tsan)_init' "$FL" 2>/dev/null; then
	# measured: about 1200 faults and 1600 pages a run of its own, which the
	# workload's counts then hold and the model's do not
	echo "1..0 # SKIP a sanitizer build's runtime faults and allocates in the workload's" \
		"own process; conformance is for the release build (make conformance)"
	exit 77
fi
T=$(mktemp -d)
trap '"$FL" host restore >/dev/null 2>&1; rm -rf "$T"' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

# verdict JSON KNOWN: "fatal: ..." lines, then one "ROW up|down" line per
# held row that differs
verdict() {
	python3 - "$1" "$2" "$SYSTEM" <<'PY'
import json, sys
try:
    res = json.load(open(sys.argv[1]))["results"]
except Exception as e:
    print("fatal: bad record: %s" % e); sys.exit()
known = set(sys.argv[2].split())
system = sys.argv[3] == "1"
for r in res:
    if r["status"]:
        print("fatal: %s failed: %s" % (r["target"], r["error"]))
    c = r["counters"]
    if c.get("fl_tag_mismatch", 0) or not c.get("fl_tag_checked"):
        print("fatal: %s read back %d wrong tags of %d" % (r["target"],
              c.get("fl_tag_mismatch", 0), c.get("fl_tag_checked", 0)))
    if r["target"] != "host":
        continue
    a = r.get("agreement")
    if not a:
        print("fatal: no agreement block"); continue
    for w in a["rows"]:
        if not w["differs"] or w["name"] in known or not (w["held"] or system):
            continue
        print("%s %s model=%d host=%d allowed=%d %s" % (w["name"],
              "up" if w["host"] > w["model"] else "down", w["model"], w["host"],
              w["allowed"], w["scope"]))
PY
}

n=0
scenarios=$(grep -v '^\(#\|$\)' "$SCEN")
if [ -n "${CONFORMANCE_ONLY:-}" ]; then
	scenarios=$(echo "$scenarios" | while read -r name rest; do
		case " $CONFORMANCE_ONLY " in *" $name "*) echo "$name $rest" ;; esac
	done)
fi
echo "1..$(echo "$scenarios" | grep -c .)"
echo "# holding $( [ "$SYSTEM" = 1 ] && echo "every row" || echo "the run's own rows (system-wide ones reported)"), up to $TRIES runs a scenario"
echo "$scenarios" | while read -r name rest; do
	n=$((n + 1))
	args=${rest%%known:*}
	known=
	case $rest in *known:*) known=${rest#*known:} ;; esac
	try=0
	: >"$T/always"
	fatal=
	while [ "$try" -lt "$TRIES" ]; do
		try=$((try + 1))
		# shellcheck disable=SC2086
		"$FL" compare $args --lru-cache order0 --target=model,host \
			--json "$T/$name.json" >"$T/$name.out" 2>"$T/$name.err"
		rc=$?
		[ -n "${CONFORMANCE_KEEP:-}" ] && mkdir -p "$CONFORMANCE_KEEP" &&
			cp "$T/$name.json" "$CONFORMANCE_KEEP/" 2>/dev/null
		if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then
			fatal="exit $rc: $(head -c 300 "$T/$name.err")"
			break
		fi
		verdict "$T/$name.json" "$known" >"$T/v"
		fatal=$(sed -n 's/^fatal: //p' "$T/v" | tr '\n' ';')
		[ -n "$fatal" ] && break
		# the rows that differed the same way in every run so far
		cut -d' ' -f1,2 "$T/v" | sort -u >"$T/now"
		if [ "$try" -eq 1 ]; then
			cp "$T/now" "$T/always"
		else
			comm -12 "$T/always" "$T/now" >"$T/both"
			mv "$T/both" "$T/always"
		fi
		[ -s "$T/v" ] && sed "s/^/# try $try differs: /" "$T/v"
		[ -s "$T/always" ] || break
	done
	if [ -z "$fatal" ] && [ ! -s "$T/always" ]; then
		again=
		[ "$try" -gt 1 ] && again=" (ran $try times: no row differed the same way in each)"
		echo "ok $n - $name$again${known:+ # known: $known}"
	else
		why=${fatal:-$(sed 's/^/^/; s/$/ /' "$T/always" | grep -f - "$T/v" | tr '\n' ';')}
		echo "not ok $n - $name: $why"
		# stderr too: prove shows it where it hides a failing line
		echo "conformance $name: $why" >&2
		sed 's/^/# /' "$T/$name.err"
		echo fail >"$T/failed"
	fi
done
[ ! -e "$T/failed" ]
