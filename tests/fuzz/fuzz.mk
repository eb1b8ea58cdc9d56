# libFuzzer targets (tests/fuzz/fuzz_*.c), built with clang and ASan+UBSan
# into build-fuzz/, apart from the gcc build.  Included by the Makefile.
#   make fuzz         build them all
#   make fuzz-smoke   run each a few seconds on its corpus; fails on a crash,
#                     leak, timeout or out-of-memory
FZ          := build-fuzz
FUZZ_CC     ?= clang
FUZZ_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS := -O1 -g -std=gnu11 -Wall -Wno-unused-parameter -Wno-sign-compare -Isrc -Itests/fuzz \
               -MMD -MP $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
               $(shell pkg-config --cflags $(PKGS) 2>/dev/null) $(PMIX_CFLAGS) $(PQ_CFLAGS)
FUZZ_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lmunge -ljwt -lmicrohttpd -lz \
               $(PMIX_LIBS) -lbpf -lpthread -lm
# What the targets reach beyond src/common: an archive, so each target
# links only the objects it uses.
FUZZ_LIB_SRC := $(COMMON_SRC) $(CMD_SHARED) $(wildcard src/cmd/sacctmgr/*.c) src/acct/tres.c \
                src/herd/sim_swf.c src/stepd/pmi.c src/stepd/pmi_kvs.c src/stepd/pmix.c src/stepd/rmtree.c src/stepd/cgroup.c \
                src/stepd/cgroup_dev.c src/stepd/launch.c src/stepd/env.c src/stepd/gpu_env.c \
                src/restd/route.c src/restd/submit.c src/restd/map.c src/restd/metrics.c \
                src/core/depend.c src/sched/feature.c
FUZZ_SRC    := $(wildcard tests/fuzz/fuzz_*.c)
FUZZERS     := $(FUZZ_SRC:tests/fuzz/%.c=$(FZ)/%)

$(FZ)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

$(FZ)/libherd-fuzz.a: $(FUZZ_LIB_SRC:%.c=$(FZ)/obj/%.o)
	rm -f $@ && ar rcs $@ $^

$(FZ)/fuzz_%: $(FZ)/obj/tests/fuzz/fuzz_%.o $(FZ)/libherd-fuzz.a
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(FUZZ_LIBS)

fuzz: $(FUZZERS)

# FUZZ_TIME seconds per target (default 5).
fuzz-smoke: fuzz
	tests/fuzz/smoke $(FZ) $(or $(FUZZ_TIME),5)

.PHONY: fuzz fuzz-smoke
-include $(shell find $(FZ)/obj -name '*.d' 2>/dev/null)
