# Convenience wrapper around meson + ninja. The real build is meson.build;
# this file only installs dependencies, creates build directories once and
# runs the test matrix:
#
#   make / make build   install the program's build deps, configure build/,
#                       build build/storbench (the program only, not the tests)
#   make run            build, then `./build/storbench run` on this directory
#                       (pass more with ARGS="...")
#   make test           install test deps, then seven runs, each run even when
#                       an earlier one failed; fails when any of them failed:
#                         build/       CC default, -Dwerror=true, every suite (--setup=full)
#                         build-clang/ CC=clang, -Dwerror=true, suite unit
#                         build-release/ CC default, buildtype release (-O3),
#                                      -Dwerror=true, suite unit (warnings gcc
#                                      gives only at -O3, not at build/'s -O2)
#                         build-asan/  ASan + UBSan, suites unit and cli
#                         build-fuzz/  clang libFuzzer + ASan + UBSan, suite fuzz
#                                      (the job-file parser, 60 s)
#                         build-arm64/ aarch64-linux-gnu-gcc, -Dwerror=true,
#                                      suites unit and cli under qemu-aarch64
#                         build-armhf/ arm-linux-gnueabihf-gcc (32-bit ARM),
#                                      -Dwerror=true, suites unit and cli
#                                      under qemu-arm
#                       (the two ARM stages run on x86-64 hosts; a board
#                       skips them, saying why, and builds natively)
#   make format         clang-format -i every .c/.h under include lib src tests bench
#   make deb            install packaging deps, build the Debian package in
#                       build-deb/ (scripts/build-deb) and lintian it;
#                       DEB_ARCH=amd64|arm64|armhf cross-builds (default: this
#                       machine's architecture), DEB_ARCH=all builds all three
#   make clean          remove the build directories and build-deb
#
# Build directories are configured once; later runs only change options that
# differ from the wanted ones, so a repeated `make test` rebuilds nothing
# that is up to date. ninja picks the number of jobs.

SHELL := /bin/bash
.DEFAULT_GOAL := build

MESON ?= meson
NINJA ?= ninja
CLANG ?= clang
# The compiler of the sanitizer build: clang and gcc both work with cmocka.
# Like CLANG, it takes effect when the build directory is created.
ASAN_CC ?= clang
ARGS ?=
DEB_ARCH ?= $(shell dpkg --print-architecture 2>/dev/null)
DEB_ARCHS := $(if $(filter all,$(DEB_ARCH)),amd64 arm64 armhf,$(DEB_ARCH))

WERROR_OPTS := -Dwerror=true
# make test builds every suite: a missing test dependency is an error there.
TEST_OPTS := $(WERROR_OPTS) -Dtests=enabled
RELEASE_OPTS := -Dbuildtype=release $(TEST_OPTS)
ASAN_OPTS := -Db_sanitize=address,undefined -Db_lundef=false -Dtests=enabled

# Any sanitizer report fails the test: halt at the first report, exit non-zero
# (no abort, so cmocka's signal handlers cannot swallow it), print the stack.
SB_ASAN_OPTIONS := halt_on_error=1:abort_on_error=0:print_stacktrace=1:detect_leaks=1:strict_string_checks=1:check_initialization_order=1:detect_stack_use_after_return=1
SB_UBSAN_OPTIONS := halt_on_error=1:abort_on_error=0:print_stacktrace=1:print_summary=1
SAN_ENV := ASAN_OPTIONS=$(SB_ASAN_OPTIONS) UBSAN_OPTIONS=$(SB_UBSAN_OPTIONS)

FORMAT_DIRS := include lib src tests bench

# $(call configure,DIR,CC or empty,-Dopt=value ...[,setup-only arguments])
# A new DIR is set up with the options (and CC, when given; and the setup-only
# arguments such as --cross-file, which `meson configure` cannot change). An
# existing one is left alone when its options already match, otherwise
# `meson configure` changes them (ninja then regenerates); if it cannot be
# configured (for example a meson upgrade broke it) it is wiped and set up
# again.
define configure
@dir='$(1)'; cc='$(2)'; opts='$(3)'; setup='$(4)'; \
	if [ ! -f "$$dir/meson-private/coredata.dat" ]; then \
	    echo "$${cc:+CC=$$cc }$(MESON) setup $$dir $${setup:+$$setup }$$opts"; \
	    $${cc:+env CC=$$cc} $(MESON) setup "$$dir" $$setup $$opts; \
	elif [ -n "$$opts" ] && ! $(MESON) introspect --buildoptions "$$dir" 2>/dev/null | \
	        python3 -c "$$OPTS_MATCH_PY" $$opts; then \
	    echo "$(MESON) configure $$dir $$opts"; \
	    $(MESON) configure "$$dir" $$opts || { \
	        echo "make: $$dir cannot be configured; setting it up again"; \
	        $${cc:+env CC=$$cc} $(MESON) setup --wipe "$$dir" $$setup $$opts; }; \
	fi
endef

# Exits 0 when every -Dname=value argument equals the build's current option.
define OPTS_MATCH_PY
import json, sys
have = {o["name"]: o["value"] for o in json.load(sys.stdin)}
def norm(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return ",".join(map(str, v))
    return str(v)
for arg in sys.argv[1:]:
    name, _, value = arg[2:].partition("=")
    if name not in have or norm(have[name]) != value:
        sys.exit(1)
endef
export OPTS_MATCH_PY

.PHONY: build run test test-build test-clang test-release test-asan test-fuzz test-arm64 test-armhf format clean \
	deps-build deps-test

deps-build:
	@scripts/install-deps build

# With the packages, qemu-user's binfmt_misc handlers (x86-64, as root):
# the slow tests that run the ARM packages (deb_qemu, fresh_root) come
# before the ARM stages, which register them too.
deps-test:
	@scripts/install-deps test
	@if [ "$(HOST_ARCH)" = x86_64 ]; then scripts/qemu-binfmt aarch64; scripts/qemu-binfmt arm; fi

build: deps-build
	$(call configure,build,,)
	$(NINJA) -C build storbench

run: build
	./build/storbench run $(ARGS)

# Each stage is its own make so a failure ends that stage only; the status of
# all seven decides the result.
test: deps-test
	@failed=; \
	$(MAKE) --no-print-directory test-build || failed="$$failed build"; \
	$(MAKE) --no-print-directory test-clang || failed="$$failed build-clang"; \
	$(MAKE) --no-print-directory test-release || failed="$$failed build-release"; \
	$(MAKE) --no-print-directory test-asan || failed="$$failed build-asan"; \
	$(MAKE) --no-print-directory test-fuzz || failed="$$failed build-fuzz"; \
	$(MAKE) --no-print-directory test-arm64 || failed="$$failed build-arm64"; \
	$(MAKE) --no-print-directory test-armhf || failed="$$failed build-armhf"; \
	if [ -n "$$failed" ]; then echo "make test: FAILED in:$$failed"; exit 1; fi; \
	echo "make test: all seven runs passed"

test-build:
	@echo "==== build: default compiler, -Dwerror=true, all suites (setup 'full')"
	$(call configure,build,,$(TEST_OPTS))
	$(NINJA) -C build
	$(MESON) test -C build --setup=full --print-errorlogs

test-clang:
	@echo "==== build-clang: clang, -Dwerror=true, suite unit"
	$(call configure,build-clang,$(CLANG),$(TEST_OPTS))
	$(NINJA) -C build-clang
	$(MESON) test -C build-clang --suite unit --print-errorlogs

test-release:
	@echo "==== build-release: default compiler, buildtype release, -Dwerror=true, suite unit"
	$(call configure,build-release,,$(RELEASE_OPTS))
	$(NINJA) -C build-release
	$(MESON) test -C build-release --suite unit --print-errorlogs

test-asan:
	@echo "==== build-asan: $(ASAN_CC) with AddressSanitizer + UBSan, suites unit and cli"
	$(call configure,build-asan,$(ASAN_CC),$(ASAN_OPTS))
	$(NINJA) -C build-asan
	$(SAN_ENV) $(MESON) test -C build-asan --suite unit --suite cli --print-errorlogs \
	    --timeout-multiplier 3

test-fuzz:
	@echo "==== build-fuzz: clang libFuzzer with ASan + UBSan, suite fuzz"
	$(call configure,build-fuzz,$(CLANG),-Dfuzz=true)
	$(NINJA) -C build-fuzz
	$(MESON) test -C build-fuzz --suite fuzz --print-errorlogs

# The ARM cross builds: 64-bit (arm64) and 32-bit (armhf, where time_t,
# off_t, size_t and long differ), with gcc and -Dwerror=true. The unit tests
# run through the cross file's exe_wrapper (qemu-user); the CLI tests run the
# binary by path, through qemu-user's binfmt_misc handler, which
# scripts/qemu-binfmt registers when it can (root) and without which they
# skip saying why. qemu-user has neither libaio nor io_uring: what needs
# them skips with the engine's own reason. They run on x86-64 hosts, where
# scripts/install-deps test installs the cross compilers and libraries; a
# board builds and tests natively instead (test-build).
HOST_ARCH := $(shell uname -m)
CROSS_TEST = $(MESON) test -C $(1) --suite unit --suite cli --print-errorlogs --timeout-multiplier 3

ifeq ($(HOST_ARCH),x86_64)
test-arm64:
	@echo "==== build-arm64: aarch64-linux-gnu-gcc, -Dwerror=true, suites unit and cli under qemu-aarch64"
	@scripts/qemu-binfmt aarch64
	$(call configure,build-arm64,,$(TEST_OPTS),--cross-file=cross/aarch64-linux-gnu.ini)
	$(NINJA) -C build-arm64
	$(call CROSS_TEST,build-arm64)

test-armhf:
	@echo "==== build-armhf: arm-linux-gnueabihf-gcc (32-bit), -Dwerror=true, suites unit and cli under qemu-arm"
	@scripts/qemu-binfmt arm
	$(call configure,build-armhf,,$(TEST_OPTS),--cross-file=cross/arm-linux-gnueabihf.ini)
	$(NINJA) -C build-armhf
	$(call CROSS_TEST,build-armhf)
else
test-arm64 test-armhf:
	@echo "==== $(patsubst test-%,build-%,$@): skipped: the ARM cross builds run on x86-64 hosts; this $(HOST_ARCH) machine builds and tests natively (make test-build)"
endif

format:
	@files=$$(find $(wildcard $(FORMAT_DIRS)) -type f \( -name '*.c' -o -name '*.h' \) | sort); \
	if [ -n "$$files" ]; then clang-format -i $$files; fi; \
	echo "clang-format: $$(printf '%s\n' $$files | grep -c .) files formatted"

.PHONY: deb
deb:
	@SB_DEB_ARCHS='$(DEB_ARCHS)' scripts/install-deps deb
	scripts/build-deb $(DEB_ARCHS)

clean:
	rm -rf build build-clang build-release build-asan build-fuzz build-arm64 build-armhf build-deb
