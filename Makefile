# kubectl-dynamo_interconnect
#
#   make              build ./kubectl-dynamo_interconnect
#   make test         unit + end-to-end tests, then again under ASan+UBSan
#   make install      PREFIX=/usr/local DESTDIR=
#   make demo         run the plugin against the bundled test cluster
#   make dist         dist/: linux/amd64 + linux/arm64 archives and the krew manifest
#   make demo KEEP=1  leave the demo cluster running (prints how to use and stop it)

PROG     := kubectl-dynamo_interconnect
VERSION  := 0.1.0
PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin
MANDIR   ?= $(PREFIX)/share/man
# deploy/ (rbac.yaml, cronjob.yaml, alerts) for whoever installs the binary.
DATADIR  ?= $(PREFIX)/share/$(PROG)
# Where bash-completion, zsh and fish look for vendor completion scripts.
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
BUILD    ?= build
CC       ?= cc
# libcrypto first: its ~4200 start-up symbol lookups (it is linked BIND_NOW)
# then find it right after the binary in the search scope; `version` runs
# 5% fewer instructions (issue 16; nothing else defines its symbols).
PKGS     := libcrypto libssl libcurl yaml-0.1 libcjson

# PKG_CONFIG: a cross build passes one that reads the target's .pc files.
PKG_CONFIG ?= pkg-config
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS))
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS))

WARN     := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wvla
CFLAGS   ?= -O2 -g
ALL_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L $(WARN) $(CFLAGS) $(SAN_FLAGS) \
	     -DPROG_VERSION='"$(VERSION)"' -Isrc $(PKG_CFLAGS) -MMD -MP
ALL_LDFLAGS = $(LDFLAGS) $(SAN_FLAGS)
LIBS     := $(PKG_LIBS) -lpthread

ifeq ($(SAN),1)
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
endif

LIB_SRCS  := $(sort $(wildcard src/*/*.c src/*/*/*.c))
CMD_SRCS  := $(sort $(wildcard cmd/*.c))
TEST_SRCS := $(sort $(wildcard tests/unit/test_*.c))
XFER_GEN  := $(BUILD)/gen/xfer_perftest.o $(BUILD)/gen/xfer_cleanup.o
GEN_SRCS  := $(BUILD)/gen/probe_script.c

# The shell completion scripts in completions/, embedded for `completion SHELL`.
COMPL_GEN := $(BUILD)/gen/completion_bash.o $(BUILD)/gen/completion_zsh.o $(BUILD)/gen/completion_fish.o
# The known-issues table (data/known-issues.yaml, check/known.h), embedded.
KNOWN_GEN := $(BUILD)/gen/known_issues_yaml.o
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/gen/probe_script.o $(XFER_GEN) $(COMPL_GEN) $(KNOWN_GEN)
CMD_OBJS  := $(CMD_SRCS:%.c=$(BUILD)/%.o)
TEST_BINS := $(TEST_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
# Test-only programs that drive the library directly (e.g. di_exec runs any
# argv in a pod: never part of the product, which execs only its probe).
TOOL_SRCS := $(sort $(wildcard tests/tools/*.c))
TOOL_BINS := $(TOOL_SRCS:tests/tools/%.c=$(BUILD)/tools/%)

.PHONY: all test check unit-tests install uninstall demo clean fuzz bench bench-cost

all: $(PROG)

$(PROG): $(BUILD)/$(PROG)
	$(Q)cp $< $@

$(BUILD)/$(PROG): $(CMD_OBJS) $(BUILD)/libdi.a
	@$(if $(Q),echo "  CCLD    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $(CMD_OBJS) $(BUILD)/libdi.a $(LIBS)

# Several modules have files of the same name (probe/rdma.c, check/rdma.c),
# which an archive would collapse into one member: keep full paths (ar P).
$(BUILD)/libdi.a: $(LIB_OBJS)
	$(Q)rm -f $@
	$(Q)ar rcsP $@ $^

# V=1 shows the full commands.
Q := $(if $(V),,@)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The probe script is embedded as a C string so the binary is self-contained,
# without its comment and blank lines (-s): every exec sends it (issue 46).
$(BUILD)/gen/probe_script.c: src/probe/probe.sh tests/tools/embed.sh
	@mkdir -p $(dir $@)
	$(Q)sh tests/tools/embed.sh -s probe_script $< > $@

$(BUILD)/gen/probe_script.o: $(BUILD)/gen/probe_script.c
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# check --transfer's fixed in-pod scripts (src/probe/perftest.h), likewise.
.PRECIOUS: $(BUILD)/gen/xfer_%.c
$(BUILD)/gen/xfer_%.c: src/probe/xfer_%.sh tests/tools/embed.sh
	@mkdir -p $(dir $@)
	$(Q)sh tests/tools/embed.sh xfer_$* $< > $@

$(BUILD)/gen/xfer_%.o: $(BUILD)/gen/xfer_%.c
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

.PRECIOUS: $(BUILD)/gen/completion_%.c
$(BUILD)/gen/completion_%.c: completions/$(PROG).% tests/tools/embed.sh
	@mkdir -p $(dir $@)
	$(Q)sh tests/tools/embed.sh completion_$* $< > $@

$(BUILD)/gen/completion_%.o: $(BUILD)/gen/completion_%.c
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/gen/known_issues_yaml.c: data/known-issues.yaml tests/tools/embed.sh
	@mkdir -p $(dir $@)
	$(Q)sh tests/tools/embed.sh known_issues_yaml $< > $@

$(BUILD)/gen/known_issues_yaml.o: $(BUILD)/gen/known_issues_yaml.c
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libdi.a tests/unit/t.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CCLD    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libdi.a $(LIBS)

$(BUILD)/tools/%: tests/tools/%.c $(BUILD)/libdi.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CCLD    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libdi.a $(LIBS)

unit-tests: $(TEST_BINS) $(TOOL_BINS) $(BUILD)/$(PROG)

# One pass: the normal build.  A second pass: the same tests built with
# AddressSanitizer and UndefinedBehaviorSanitizer in build/san.
test check: unit-tests
	sh tests/tools/banned.sh
	sh tests/tools/no_outside_refs.sh
	sh tests/tools/no_ignored_inputs.sh
	sh tests/tools/no_shared_statics.sh
	/usr/bin/python3 tests/tools/check_names.py
	sh tests/run.sh $(BUILD)
	$(MAKE) --no-print-directory BUILD=build/san SAN=1 unit-tests
	sh tests/run.sh build/san
	sh tests/fuzz/run.sh $(FUZZ_SMOKE_SECONDS)
	$(MAKE) --no-print-directory test-real

install: $(PROG)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 0755 $(PROG) $(DESTDIR)$(BINDIR)/$(PROG)
	install -m 0644 man/$(PROG).1 $(DESTDIR)$(MANDIR)/man1/$(PROG).1
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 0644 completions/$(PROG).bash $(DESTDIR)$(BASHCOMPDIR)/$(PROG)
	install -m 0644 completions/$(PROG).zsh $(DESTDIR)$(ZSHCOMPDIR)/_$(PROG)
	install -m 0644 completions/$(PROG).fish $(DESTDIR)$(FISHCOMPDIR)/$(PROG).fish
	install -d $(DESTDIR)$(DATADIR)/deploy
	install -m 0644 deploy/rbac.yaml deploy/cronjob.yaml deploy/alerts.yaml $(DESTDIR)$(DATADIR)/deploy/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/$(PROG) \
	      $(DESTDIR)$(MANDIR)/man1/$(PROG).1 \
	      $(DESTDIR)$(BASHCOMPDIR)/$(PROG) $(DESTDIR)$(ZSHCOMPDIR)/_$(PROG) \
	      $(DESTDIR)$(FISHCOMPDIR)/$(PROG).fish
	rm -rf $(DESTDIR)$(DATADIR)

# KEEP=1 leaves the cluster running (demo-stop stops it).
.PHONY: demo-stop
demo: $(PROG)
	KEEP=$(KEEP) sh tests/tools/demo.sh

demo-stop:
	sh tests/tools/demo.sh stop

# README's examples, regenerated from a run against the demo cluster
# (tests/e2e/test_readme.py fails when they drift).
.PHONY: readme-examples
readme-examples: $(PROG)
	/usr/bin/python3 tests/tools/readme_examples.py $(CURDIR)/$(PROG)

# Scale benchmark against kubectl exec (bench/README.md); not part of test.
bench: $(PROG)
	sh bench/run.sh $(BENCH_ARGS)

# The cost per pod (issue 46): instructions by stage at 40 pods (callgrind),
# the probe's bytes, wall and CPU in each stock image profile, then the guard.
bench-cost: $(PROG) $(BUILD)/tools/di_exec
	BENCH_PLUGIN=$(CURDIR)/$(PROG) /usr/bin/python3 bench/instr.py --pods 40 --keep --stages --out $(BUILD)/bench
	BENCH_PLUGIN=$(CURDIR)/$(PROG) DI_EXEC=$(CURDIR)/$(BUILD)/tools/di_exec /usr/bin/python3 bench/inpod.py
	DI_PLUGIN=$(CURDIR)/$(PROG) DI_TOOLS=$(CURDIR)/$(BUILD)/tools /usr/bin/python3 tests/e2e/runner.py tests/e2e test_cost

# End to end on a real single-node Kubernetes v1.20.2 (tests/realcluster/):
# up, the tests, down (always).  Root; the first run on a machine builds
# kube-apiserver and kubelet from Debian's source package (~10 min).
.PHONY: test-real
test-real: $(PROG) $(BUILD)/tools/di_exec
	sh tests/realcluster/run.sh $(BUILD)

# ---- completion helper, release archive, krew manifest (issues 5, 18) ----
# kubectl runs kubectl_complete-dynamo_interconnect for completion; the
# binary answers as the completer when called by that name.
COMPLETER := kubectl_complete-dynamo_interconnect
DISTDIR   ?= dist
# Krew installs the archive and nothing else: libyaml goes in statically
# (Debian ships libyaml.a).  libcurl, libcrypto, libssl and libcjson stay shared:
# Debian has no static libcjson, and its libcurl.a needs static libraries of
# GSSAPI, LDAP, nghttp2, ssh2, rtmp and psl it does not ship (README
# "Release archives" lists what remains and why).
DIST_LIBS = $(shell $(PKG_CONFIG) --variable=libdir yaml-0.1)/libyaml.a \
	     $(shell $(PKG_CONFIG) --libs libcrypto libssl libcurl libcjson) -lpthread

.PHONY: dist install-completer uninstall-completer
install: install-completer
uninstall: uninstall-completer

install-completer:
	install -d $(DESTDIR)$(BINDIR)
	ln -sf $(PROG) $(DESTDIR)$(BINDIR)/$(COMPLETER)

uninstall-completer:
	rm -f $(DESTDIR)$(BINDIR)/$(COMPLETER)

# The release binary: stripped (-s); krew/dist.sh builds it once per
# architecture with the compiler, PKG_CONFIG and reproducible CFLAGS.
$(BUILD)/dist/$(PROG): $(CMD_OBJS) $(BUILD)/libdi.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -s -o $@ $(CMD_OBJS) $(BUILD)/libdi.a $(DIST_LIBS)

# dist/: one reproducible archive per platform and the krew manifest with
# both sha256 (krew/dist.sh); no tracked file changes.
dist:
	+DISTDIR=$(DISTDIR) sh krew/dist.sh
# ---- end issue 5 ----

# libFuzzer targets (tests/fuzz/README.md): clang, -fsanitize=fuzzer,
# address,undefined, into build/fuzz.  `make test` ends with a short smoke
# of each (once, not per sanitizer pass).
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 8
fuzz:
	sh tests/fuzz/run.sh $(FUZZ_SECONDS)

clean:
	rm -rf build $(PROG)

-include $(LIB_OBJS:.o=.d) $(CMD_OBJS:.o=.d)

# ---- issue 27: in-cluster image (deploy/image.sh, docs/real-cluster.md) ----
# An OCI archive of the release binary and the shared libraries ldd names,
# built without docker; `ctr -n k8s.io images import` takes it.
IMAGE_REF ?= docker.io/dynamo-interconnect/kubectl-dynamo_interconnect:latest
.PHONY: image
image: $(BUILD)/dist/$(PROG)
	sh deploy/image.sh $(BUILD)/dist/$(PROG) $(BUILD)/image.oci.tar $(IMAGE_REF)
# test-real runs the image as a Job (tests/realcluster/test_real.py TestInClusterJob)
test-real: image
# ---- end issue 27 in-cluster image ----
