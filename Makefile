# Herd — non-recursive build. Everything lands in build/ (binaries in build/bin).
#   make            build all programs
#   make SAN=1      build with ASan+UBSan into build-san/ (`make SAN=1 test` tests that build)
#   make test       install deps, build, run unit tests and cluster tests
#   make demo       install deps, build, bring up a 4-node cluster and run a demo workload
#   make install PREFIX=/usr/local
CC      ?= cc
PREFIX  ?= /usr/local
B       ?= $(if $(filter 1,$(SAN)),build-san,build)
PKGS    := jansson libuv sqlite3 hwloc nettle
# libpq: herdctld's PostgreSQL accounting backend (and bench/acct)
PQ_CFLAGS := $(shell pkg-config --cflags libpq 2>/dev/null)
PQ_LIBS   := $(shell pkg-config --libs libpq 2>/dev/null)
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare -Isrc -MMD -MP \
           $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS  += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lmunge -lpthread -lm
ifeq ($(SAN),1)
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -O1
LDFLAGS += -fsanitize=address,undefined
endif

COMMON_SRC := $(wildcard src/common/*.c)
SCHED_SRC  := $(wildcard src/sched/*.c)
LIB        := $(B)/libherd.a
CMDS       := sbatch squeue scancel sinfo scontrol sacct srun salloc sacctmgr sshare sreport sprio
# srun's and salloc's own pieces (srun_*.c) use libuv: linked into those two only.
# srun_check.c (pure: the option values' checks) is every command's: the
# job-option table (jobopt*.c) reads with it.
SRUN_SRC   := $(filter-out src/cmd/srun_check.c,$(wildcard src/cmd/srun_*.c))
# sacct's own pieces (sacct_*.c): linked into sacct only.
SACCT_SRC  := $(wildcard src/cmd/sacct_*.c)
# squeue's own pieces (squeue_*.c): linked into squeue only.
SQUEUE_SRC := $(wildcard src/cmd/squeue_*.c)
CMD_SHARED := $(filter-out $(CMDS:%=src/cmd/%.c) $(SRUN_SRC) $(SACCT_SRC) $(SQUEUE_SRC),$(wildcard src/cmd/*.c))
DAEMONS    := herdctld:ctld herdd:noded herdstepd:stepd herd:herd herdrestd:restd
PROGS      := $(foreach d,$(DAEMONS),$(firstword $(subst :, ,$(d)))) $(CMDS)
BINS       := $(PROGS:%=$(B)/bin/%)
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
UNITS      := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
BENCH_SRC  := $(wildcard bench/*.c)
BENCHES    := $(BENCH_SRC:bench/%.c=$(B)/bench/%)

obj = $(patsubst %.c,$(B)/obj/%.o,$(1))

# The tests' fake NVML (doc/gres.md): herdd loads it through HERD_NVML_LIBRARY.
FAKE_NVML  := $(B)/lib/fake-nvml/libnvidia-ml.so.1

all: $(BINS) $(UNITS) $(BENCHES) $(FAKE_NVML)

$(FAKE_NVML): tests/fake/nvml.c
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -MMD -MP,$(CFLAGS)) -fPIC -shared -Wl,-soname,libnvidia-ml.so.1 -o $@ $<

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(LIB): $(call obj,$(COMMON_SRC) $(SCHED_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

define daemon_rule
$(B)/bin/$(1): $(call obj,$(wildcard src/$(2)/*.c)) $(LIB)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(LDFLAGS) -o $$@ $$^ $$(LDLIBS) $(if $(filter restd,$(2)),-lmicrohttpd -ljwt)
endef
$(foreach d,$(DAEMONS),$(eval $(call daemon_rule,$(firstword $(subst :, ,$(d))),$(lastword $(subst :, ,$(d))))))
# herdd cleans up after a killed herdstepd (src/noded/reclaim.c): its cgroups
$(B)/bin/herdd: $(call obj,src/stepd/cgroup.c src/stepd/cgroup_dev.c)
# and removes the jobs' MPS directories, the users' (src/noded/mps.c)
$(B)/bin/herdd: $(call obj,src/stepd/rmtree.c)
# herdd opens NVML with dlopen (src/noded/nvml.c)
$(B)/bin/herdd: LDLIBS += -ldl
# libbpf (libbpf-dev): cgroup v2's ConstrainDevices loads an eBPF device
# program (src/stepd/cgroup_dev.c)
$(B)/bin/herdd $(B)/bin/herdstepd $(B)/tests/test_stepd_cgroup: LDLIBS += -lbpf

# Commands start thousands of times a second on a busy cluster: link the small
# libraries they use statically, so start-up is not spent in the dynamic loader
# (sbatch 1.43 -> 0.97 ms of CPU).  glibc stays dynamic: a static glibc crashes
# in getpwnam when nsswitch.conf names modules such as systemd or sss.
CMD_LDLIBS := -Wl,-Bstatic -ljansson -lnettle -lmunge -Wl,-Bdynamic -lpthread -lm
$(CMDS:%=$(B)/bin/%): $(B)/bin/%: $(B)/obj/src/cmd/%.o $(call obj,$(CMD_SHARED)) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(filter %.a,$^) $(CMD_LDLIBS) $(CMD_EXTRA_LIBS)

# libuv static when the system has the archive (Debian names it libuv_a.a).
UV_STATIC  := $(firstword $(wildcard $(shell $(CC) -print-file-name=libuv.a) \
                                     $(shell $(CC) -print-file-name=libuv_a.a)))
$(B)/bin/sacct: $(call obj,$(SACCT_SRC))
$(B)/bin/squeue: $(call obj,$(SQUEUE_SRC))
$(B)/bin/srun $(B)/bin/salloc: $(call obj,$(SRUN_SRC))
$(B)/bin/srun $(B)/bin/salloc: CMD_EXTRA_LIBS := $(if $(UV_STATIC),$(UV_STATIC) -ldl,-luv)
# sacctmgr's own pieces (src/cmd/sacctmgr/): linked into it only.
$(B)/bin/sacctmgr: $(call obj,$(wildcard src/cmd/sacctmgr/*.c))
# test_srun_cmd runs the two programs.
$(B)/tests/test_srun_cmd: | $(B)/bin/srun $(B)/bin/salloc

$(B)/tests/%: $(B)/obj/tests/unit/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

# Controller unit tests link the controller's objects (all but main.o).
# The controller core (jobs, nodes, partitions, reservations, priority,
# preemption, the passes; no I/O): src/core/ (doc/core.md).
# The accounting (associations, limits' usage, records, reports): src/acct/.
CORE_SRC  := $(wildcard src/core/*.c)
ACCT_SRC  := $(wildcard src/acct/*.c)
CTLD_OBJS := $(call obj,$(filter-out src/ctld/main.c,$(wildcard src/ctld/*.c)) $(CORE_SRC) $(ACCT_SRC))
# libjwt: the controller verifies and mints auth/jwt tokens (src/common/token.c)
$(B)/bin/herdctld $(B)/tests/test_ctld_%: LDLIBS += $(PQ_LIBS) -ljwt
$(B)/tests/test_token: LDLIBS += -ljwt
$(call obj,$(wildcard src/ctld/*.c) $(ACCT_SRC)): CFLAGS += $(PQ_CFLAGS)
$(B)/bin/herdctld: $(call obj,$(CORE_SRC) $(ACCT_SRC))
$(B)/bin/herdctld: LDLIBS += $(LIB)   # again, after the accounting objects
$(B)/tests/test_ctld_%: $(B)/obj/tests/unit/test_ctld_%.o $(CTLD_OBJS) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

# `herd sim` reads gzip traces (zlib); its unit tests link herd's objects
# (all but herd.c's main).
# `herd sim --policy slurm` runs the controller's own code: herd links the
# controller's objects too (doc/core.md).
# `herd sim --jobs/--accounts/--reservations` read their files with the
# commands' own code (sbatch's options and job object, sacctmgr's flat
# file, scontrol's reservation request): herd links those objects too.
HERD_CMD_OBJS := $(call obj,$(addprefix src/cmd/,opt.c fmt.c record.c step.c jobopt.c jobopt_read.c jobopt_table.c jobopt_pbs.c srun_check.c \
                   scontrol_resv.c sacctmgr/flat_parse.c sacctmgr/keys.c))
# `herd up` on a machine with GPUs finds them as herdd does (src/noded/nvml.c, dlopen).
HERD_OBJS := $(call obj,$(filter-out src/herd/herd.c,$(wildcard src/herd/*.c))) $(HERD_CMD_OBJS) \
             $(call obj,src/noded/nvml.c)
$(B)/bin/herd: $(CTLD_OBJS) $(HERD_CMD_OBJS) $(call obj,src/noded/nvml.c)
$(B)/bin/herd: LDLIBS += $(LIB)   # again, after the controller's objects
$(B)/bin/herd $(B)/tests/test_sim $(B)/tests/test_sim_%: LDLIBS += -lz $(PQ_LIBS) -ljwt -ldl
$(B)/tests/test_sim: $(B)/obj/tests/unit/test_sim.o $(HERD_OBJS) $(CTLD_OBJS) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka
$(B)/tests/test_sim_%: $(B)/obj/tests/unit/test_sim_%.o $(HERD_OBJS) $(CTLD_OBJS) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

# herdstepd's PMIx server (src/stepd/pmix.c) is on libpmix, whose headers
# and library Debian keeps out of the default paths (pmix2/).
PMIX_CFLAGS := $(shell pkg-config --cflags pmix 2>/dev/null)
PMIX_LIBS   := $(shell pkg-config --libs pmix 2>/dev/null)
$(B)/obj/src/stepd/pmix.o $(B)/obj/tests/unit/test_stepd_pmi.o: CFLAGS += $(PMIX_CFLAGS)
$(B)/bin/herdstepd $(B)/tests/test_stepd_pmi: LDLIBS += $(PMIX_LIBS)

# The MPI programs the PMI tests run, built with each MPI's compiler that
# is installed (none: the tests say so and skip).
MPI_SRC   := $(wildcard tests/unit/mpi/*.c)
MPICC_MPICH   := $(shell command -v mpicc.mpich 2>/dev/null)
MPICC_OPENMPI := $(shell command -v mpicc.openmpi 2>/dev/null)
MPI_PROGS := $(if $(MPICC_MPICH),$(MPI_SRC:tests/unit/mpi/%.c=$(B)/tests/mpi/mpich/%)) \
             $(if $(MPICC_OPENMPI),$(MPI_SRC:tests/unit/mpi/%.c=$(B)/tests/mpi/openmpi/%))
$(B)/tests/mpi/mpich/%: tests/unit/mpi/%.c
	@mkdir -p $(dir $@)
	$(MPICC_MPICH) -O1 -o $@ $<
$(B)/tests/mpi/openmpi/%: tests/unit/mpi/%.c
	@mkdir -p $(dir $@)
	$(MPICC_OPENMPI) -O1 -o $@ $<
$(B)/tests/test_stepd_pmi: | $(MPI_PROGS)

$(B)/bench/%: $(B)/obj/bench/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# bench/acct drives the controller's real store: its objects and libpq.
$(B)/bench/acct: $(B)/obj/bench/acct.o $(CTLD_OBJS) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(PQ_LIBS) -ljwt

# bench/sched runs the controller's scheduler in-process, as bench/acct its store.
$(B)/bench/sched: $(B)/obj/bench/sched.o $(CTLD_OBJS) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(PQ_LIBS) -ljwt

deps:
	@scripts/install-deps

# tests/layout/core_io.sh: src/core includes and calls no I/O (doc/core.md).
unit: $(UNITS)
	@set -e; for t in $(UNITS); do echo "== $$t"; $$t; done
	tests/layout/core_io.sh $(B)

# The accounting tests run a second time with their records on PostgreSQL
# (a real server per run, tests/cluster/pg.py); test_acct_backend covers both
# backends itself.
ACCT_TESTS := $(addprefix tests/cluster/test_,sacctmgr.py sacct.py sacct_tres.py sshare.py \
                sreport.py roles.py limits.py)
# The cluster tests run TEST_JOBS files at a time (pytest-xdist; each file
# has its own cluster on its own ports).  On a loaded 2-core machine a
# whole-cluster test can miss a deadline now and then: whatever failed is run
# once more, alone (--last-failed), and only a second failure fails the run.
# Both runs print their failures; with none on record (an error outside the
# tests) the second run is the whole set again.
TEST_JOBS ?= $(if $(filter 1,$(SAN)),1,3)
PYTEST    := /usr/bin/python3 -m pytest -q --durations=15
PYTEST_N  := $(if $(filter-out 1,$(TEST_JOBS)),-n $(TEST_JOBS) --dist loadfile)
define pytest_run
$(1) $(PYTEST) -o cache_dir=$(abspath $(B))/pytest-$(3) $(PYTEST_N) $(2) || { echo "== the failures above, run again alone"; \
	$(1) $(PYTEST) -o cache_dir=$(abspath $(B))/pytest-$(3) --last-failed $(2); }
endef
cluster: $(BINS)
	$(call pytest_run,HERD_BIN=$(abspath $(B))/bin,tests/cluster,cluster)
	$(MAKE) cluster-pgsql

cluster-pgsql: $(BINS)
	$(call pytest_run,HERD_TEST_ACCT=pgsql HERD_BIN=$(abspath $(B))/bin,$(ACCT_TESTS),pgsql)

# The builds use every core (the gcc and the clang build take ~4 min one
# file at a time on 2 cores); the fuzz smoke runs each target 3 s.
NPROC := $(shell nproc 2>/dev/null || echo 2)
test: deps
	$(MAKE) -j$(NPROC) all $(UNITS)
	$(MAKE) unit
	$(MAKE) -j$(NPROC) fuzz
	$(MAKE) fuzz-smoke FUZZ_TIME=3
	$(MAKE) cluster

demo: deps
	$(MAKE) all
	scripts/demo

bench: all
	scripts/bench
	$(B)/bench/acct
	scripts/bench-sched
	$(B)/bench/sched_core

install: $(BINS)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/sbin
	install -m 755 $(CMDS:%=$(B)/bin/%) $(B)/bin/herd $(DESTDIR)$(PREFIX)/bin/
	install -m 755 $(B)/bin/herdctld $(B)/bin/herdd $(B)/bin/herdstepd $(B)/bin/herdrestd $(DESTDIR)$(PREFIX)/sbin/

clean:
	rm -rf $(B)

# Fuzzing: make fuzz, make fuzz-smoke (tests/fuzz/README and doc/fuzzing.md).
include tests/fuzz/fuzz.mk

.PHONY: all deps unit cluster cluster-pgsql test demo bench install clean
-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
