# SPDX-License-Identifier: GPL-2.0-only
# foliolab build. Variants by variable, each in its own folder:
#   make                      release (-O2, FL_DEBUG=0)      build/release
#   make SAN=address,undefined ASan+UBSan (FL_DEBUG=3)        build/asan
#   make SAN=thread            TSan (FL_DEBUG=2)              build/tsan
#   make WERROR=1              warnings are errors (CI)
#   make check T=test-cost     one test (a C test or a tests/cli script)
# Targets: all (default), run, check, check-stress, conformance, bench, format, format-check,
# clean

CC ?= cc
SAN ?=
WERROR ?=

# The release build links the model with LTO: the hot paths cross files
# (fault -> page allocator -> LRU cache) and inlining them is worth ~6%
# of the instructions per fault. LTO=0 turns it off.
LTO ?= 1
GCC_AR := $(shell command -v gcc-ar 2>/dev/null)

ifeq ($(SAN),)
  VARIANT := release
  OPT := -O2 -DFL_DEBUG=0
  ifeq ($(LTO)$(if $(GCC_AR),y,),1y)
    OPT += -flto=auto
    AR := $(GCC_AR)
  endif
else ifeq ($(SAN),thread)
  VARIANT := tsan
  OPT := -O1 -g -DFL_DEBUG=2 -fsanitize=thread
else
  VARIANT := asan
  OPT := -O1 -g -DFL_DEBUG=3 -fsanitize=$(SAN) -fno-sanitize-recover=all
endif

# JUMP_LABEL=0: the simulator's static branches test a flag instead of
# being patched (src/platform/jump_label.h), to compare the two; built
# apart (build/release-flag, ...)
ifeq ($(JUMP_LABEL),0)
  VARIANT := $(VARIANT)-flag
  OPT += -DFL_JUMP_LABEL=0
endif
B := build/$(VARIANT)
WARN := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wformat=2 -Wvla -Wundef
ifneq ($(WERROR),)
  WARN += -Werror
endif
CPPFLAGS := -D_GNU_SOURCE -Iinclude -Isrc
CFLAGS := -std=gnu11 $(OPT) -g -fno-omit-frame-pointer -fvisibility=hidden -pthread -MMD -MP $(WARN) $(EXTRA_CFLAGS)
# -z now: every symbol bound at start, so that a forked host process
# writes no lazy-binding slot of its own later (a copy-on-write fault the
# workload would not have made)
LDFLAGS := -pthread -Wl,-z,now $(filter -fsanitize=%,$(OPT))
LDLIBS := -lm

LIB_SRCS := $(wildcard src/platform/*.c src/platform/native/*.c src/platform/sim/*.c src/lib/*.c src/mm/*.c src/target/*.c src/record/*.c \
	src/calibrate/*.c src/workloads/*.c)
CLI_SRCS := $(wildcard src/cli/*.c)
TEST_SRCS := $(wildcard tests/unit/*.c tests/stress/*.c)
BENCH_SRCS := $(wildcard bench/*.c)

# the default cost file, compiled in as a string: the 16-CPU machine with
# hardware paging, closer to bare metal than this PVM guest (costs/pvm-epyc2.costs)
DEFAULT_COSTS := costs/intel16-kvm.costs
LIB_OBJS := $(LIB_SRCS:%.c=$(B)/%.o) $(B)/gen/default_costs.o
CLI_OBJS := $(CLI_SRCS:%.c=$(B)/%.o)
LIB := $(B)/libfoliolab.a
PROG := $(B)/foliolab
TESTS := $(TEST_SRCS:tests/%.c=$(B)/tests/%)
# the concurrency tests, plus the hand-over of unlocked atomics between threads
STRESS_TESTS := $(filter $(B)/tests/stress/%,$(TESTS)) $(B)/tests/unit/test-atomic
BENCHES := $(BENCH_SRCS:bench/%.c=$(B)/bench/%)
SCRIPT_TESTS := $(wildcard tests/cli/*.sh)
# make check T=NAME (or check-unit, check-stress): the one test NAME, a C
# test (test-cost) or a script (test-cli), in the variant's build
ifneq ($(T),)
  TESTS := $(filter %/$(T),$(TESTS))
  STRESS_TESTS := $(filter %/$(T),$(STRESS_TESTS))
  SCRIPT_TESTS := $(filter %/$(T).sh,$(SCRIPT_TESTS))
  ifeq ($(TESTS)$(SCRIPT_TESTS),)
    $(error T=$(T): no test of that name; accepted a file of tests/unit, tests/stress or tests/cli without its suffix, e.g. T=test-cost)
  endif
endif

.PHONY: all run check check-unit check-stress conformance bench costs format format-check clean FORCE
all: $(PROG) foliolab

# ./foliolab is the program of the variant built last (every README
# command runs it): make, make run and make check leave it pointing at
# build/release/foliolab, make SAN=... check at that variant's
foliolab: $(PROG) FORCE
	@[ "$$(readlink foliolab 2>/dev/null)" = "$(PROG)" ] || ln -sfn $(PROG) foliolab
FORCE:

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(B)/gen/default_costs.c: $(DEFAULT_COSTS)
	@mkdir -p $(dir $@)
	{ echo 'extern const char fl__default_costs[];'; echo 'const char fl__default_costs[] ='; \
	  sed 's/\\/\\\\/g; s/"/\\"/g; s/^/\t"/; s/$$/\\n"/' $<; echo ';'; } > $@

$(B)/gen/default_costs.o: $(B)/gen/default_costs.c
	$(CC) $(CFLAGS) -Wno-overlength-strings -c $< -o $@

$(LIB): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(PROG): $(CLI_OBJS) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJS) $(LIB) $(LDLIBS)

$(B)/tests/%: tests/%.c $(LIB) tests/harness.h tests/mm_harness.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests -DFL_TEST_DATA='"$(abspath tests/data)"' $(CFLAGS) $(LDFLAGS) -o $@ $< \
		$(LIB) $(LDLIBS)

$(B)/bench/%: bench/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

# The default job: seed 000's experiment at its own size, on virtual CPUs:
# 20 CPUs (threads), 16K mTHP, the three LRU-cache policies side by side
# (300 of the seed's 1000 loops, so that it takes seconds).
run: $(PROG) foliolab
	$(PROG) compare lru-microbench --threads 20 --loops 300 --mthp 16K=always \
		--lru-cache=order0,max16,pages31

# prove runs the TAP tests; without perl's prove, tests/tap-all does it.
PROVE := $(if $(shell command -v prove 2>/dev/null),prove --exec tests/tap-run,tests/tap-all)

check: $(TESTS) $(PROG) foliolab $(BENCHES)
	FOLIOLAB=$(abspath $(PROG)) BENCH_LRU=$(abspath $(B)/bench/bench-lru) \
		BENCH_SPLIT=$(abspath $(B)/bench/bench-split) \
		$(PROVE) $(TESTS) $(SCRIPT_TESTS)

# The C tests alone, without the scripts that run workloads on the host
# kernel: quicker while developing. (They still fault host memory, so do
# not run them beside a conformance run, whose host counters are
# system-wide.)
check-unit: $(TESTS)
	$(PROVE) $(TESTS)

check-stress: $(STRESS_TESTS)
	$(PROVE) $(STRESS_TESTS)

# The model against the host kernel, scenario by scenario (root and the
# mTHP sysfs knobs; skipped with the reason elsewhere). make check runs it
# too, holding only the rows the host counts for the run alone; make
# conformance also holds the system-wide ones (re-running a scenario
# whose row differs, tests/cli/test-conformance.sh), unless
# CONFORMANCE_SYSTEM=0 (a machine others load: their system-wide counts
# are no one's to hold).
CONFORMANCE_SYSTEM ?= 1
conformance: $(PROG) foliolab
	CONFORMANCE_SYSTEM=$(CONFORMANCE_SYSTEM) FOLIOLAB=$(abspath $(PROG)) \
		$(PROVE) tests/cli/test-conformance.sh

# Wall-clock medians (noisy on a shared machine), then, where valgrind is
# installed, the instructions per fault+zap, which do not depend on noise.
# The count is printed even when a wall-clock target is missed; the exit
# status still says so.
bench: $(BENCHES) $(PROG)
	@rc=0; for b in $(BENCHES); do $$b || rc=1; done; \
	if command -v valgrind >/dev/null 2>&1; then bench/instructions $(PROG) || rc=1; fi; \
	exit $$rc

# The shipped cost files, fitted from the shipped measurements (calibrate
# --fit, docs/foliolab-calibrate.md): run after a change to what the model
# charges; test-cli fails until they agree. A check row outside 15% (exit
# 1) is the fit's report, not a failure.
costs: $(PROG)
	@for m in costs/*.measured; do c=$${m%.measured}.costs; \
		$(PROG) calibrate --fit $$m --out $$c >/dev/null; rc=$$?; \
		[ $$rc -le 1 ] || exit 1; echo "$$c: fitted from $$m"; done

FORMAT_FILES := $(shell find src include tests bench -name '*.[ch]' 2>/dev/null)
format:
	clang-format -i $(FORMAT_FILES)
format-check:
	clang-format --dry-run -Werror $(FORMAT_FILES)

clean:
	rm -rf build foliolab

-include $(LIB_OBJS:.o=.d) $(CLI_OBJS:.o=.d)
