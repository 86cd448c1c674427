# CallAlert: the two commands a new machine needs are `make demo` and `make test`.
SWIFT ?= swift
SWIFT_FORMAT ?= swift-format
FUZZ_SECONDS ?= 60
REALTIME_SUITES ?= RealTime|Conformance|RingAndVibrate|Unplug|Stress|Pacing|HistoryLoadTests|AsFastAsTheSocketTakesThem|ConnectionFlood
# install, uninstall, deb: where (GNU conventions; DESTDIR stages) and what build (release; debug is quicker)
PREFIX ?= /usr/local
DESTDIR ?=
BUILD_CONFIG ?= release
# The git revision `callalert --version` reports; default `git describe --always --dirty`.
REVISION ?=
# A release build carries its Swift runtime (Linux), so the binary and the package run without a toolchain.
STATIC_STDLIB ?= $(if $(and $(filter release,$(BUILD_CONFIG)),$(filter Linux,$(shell uname -s))),--static-swift-stdlib)
STRIP ?= $(if $(filter release,$(BUILD_CONFIG)),1,0)
INSTALL_ENV = DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" STRIP="$(STRIP)" $(foreach v,BINDIR DATADIR MANDIR DOCDIR SYSCONFDIR \
  SYSTEMDSYSTEMUNITDIR SYSTEMDUSERUNITDIR UDEVRULESDIR SYSUSERSDIR BASHCOMPDIR ZSHCOMPDIR FISHCOMPDIR,\
  $(if $($(v)),$(v)="$($(v))"))

.PHONY: all deps build test demo bench soak fuzz fuzz-long firmware-check firmware qemu format lint clean revision \
  install-build install uninstall deb test-install flake-hunt

all: build

## deps: install what is missing (apt-get when root; otherwise print the exact command)
deps:
	@Tools/scripts/install-deps.sh

## build: debug build of every target
build: deps revision
	$(SWIFT) build

## revision: bake the git revision into the binary (Sources/CBuildInfo/revision.h, untracked; rewritten on change)
revision:
	@Tools/scripts/write-revision.sh $(REVISION)

## test: install what is missing, build the QEMU firmware (when qemu-system-arm and ld.lld are here), build,
## run every test (the conformance suite runs on the virtual board and the firmware in QEMU; the suites named
## RealTime*, whose tests truly need the real clock (a pseudo-terminal's timing), and the stress suites, which would
## starve the timing of the others, run alone afterwards),
## check docs/openapi.yaml against the running HTTP API with schemathesis (Tools/scripts/check-openapi.sh),
## drive the page in chromium with Selenium and axe-core (Tools/scripts/check-page.sh; screenshots in
## .build/page-artefacts),
## compile the portable core as Embedded Swift, check Package.swift against docs/ARCHITECTURE.md's import
## rules, and check the install tree
test: deps revision
	@Tools/scripts/firmware-if-possible.sh
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --skip '$(REALTIME_SUITES)'
	$(SWIFT) test --skip-build --filter '$(REALTIME_SUITES)' --no-parallel
	@Tools/scripts/check-openapi.sh
	@Tools/scripts/check-page.sh
	@Tools/scripts/firmware-check.sh
	@Tools/scripts/check-architecture.sh
	@if [ "$${CALLALERT_SKIP_INSTALL_TESTS:-0}" != 1 ]; then BUILD_CONFIG=debug Tools/scripts/test-install.sh; fi

## flake-hunt: run the parallel suite N times and the real-time suites N/2 times (REALTIME_N), each failure
## named with its test and file:line (logs in .build/flake-hunt); LOAD=run loads the machine with a second run
## of the parallel suite, LOAD=1 with two CPU-bound processes
N ?= 20
flake-hunt: deps revision
	@N=$(N) LOAD=$(or $(LOAD),0) REALTIME_SUITES='$(REALTIME_SUITES)' Tools/scripts/flake-hunt.sh

## install: build (release, BUILD_CONFIG=debug for a quick one) and install into $(DESTDIR)$(PREFIX): the binary,
## man pages, completions, example config, systemd units, udev rule, sysusers.d (see README "Install")
install-build: deps revision
	$(SWIFT) build -c $(BUILD_CONFIG) --product callalert $(STATIC_STDLIB)
	$(SWIFT) build -c $(BUILD_CONFIG) --product generate-manual $(STATIC_STDLIB)

install: $(if $(NO_BUILD),,install-build)
	@$(INSTALL_ENV) BIN_PATH="$$($(SWIFT) build -c $(BUILD_CONFIG) --show-bin-path)" Tools/scripts/install.sh install

## uninstall: remove what install put down (the config in /etc and the history stay)
uninstall:
	@$(INSTALL_ENV) Tools/scripts/install.sh uninstall

## deb: a Debian package in .build-deb/ (dpkg-deb): binary, units, udev rule, man pages, postinst creating the user
deb: install-build
	@STRIP="$(STRIP)" BIN_PATH="$$($(SWIFT) build -c $(BUILD_CONFIG) --show-bin-path)" Tools/scripts/make-deb.sh

## test-install: the install tree, the units (systemd-analyze verify), the package (debug build; part of `make test`)
test-install: deps
	@BUILD_CONFIG=debug Tools/scripts/test-install.sh

## demo: the main job (a virtual board in-process when no hardware is plugged in)
demo: deps
	$(SWIFT) run callalert demo

## bench: measure the codec, flashing and the daemon (latency and 32 boards in series interleaved with a C floor's,
## cap accuracy, idle CPU, wake-ups and RSS; per request, `callalert run`'s system calls and context switches under
## perf and its instructions under callgrind, when installed) with the machine's load; prints a table and writes
## bench-results.json (docs/BENCH.md; never fails on timing; BENCH_ARGS="--keep-callgrind DIR" keeps the dumps);
## the page's weight, first render and call-to-alert time in chromium (bench-page.json, a debug build's server);
## then the codec micro-benchmarks on ordo-one/benchmark (Benchmarks/). BENCH_ARGS for more, e.g. --only codec;
## last the footprint (Tools/scripts/footprint.sh: the stripped binary and its modules' bytes, --version, idle RSS)
bench: deps
	$(SWIFT) build -c release --scratch-path .build-bench --product callalert-bench
	$(SWIFT) build -c release --scratch-path .build-bench --product callalert-bench-floor
	$(SWIFT) build -c release --scratch-path .build-bench --product callalert
	.build-bench/release/callalert-bench --json bench-results.json $(BENCH_ARGS)
	@Tools/scripts/check-page.sh bench || echo "bench: the page's figures could not be measured (see above)"
	@Tools/scripts/bench-codec-ordo.sh
	@Tools/scripts/footprint.sh || echo "bench: the footprint could not be measured (see above)"

## soak: the reliability soak (minutes; not in CI): 10 000 calls through a faulty, unplugged line, kill -9 of the
## daemon mid-ring 100 times, then the chaos run (misbehaving clients, a descriptor limit, a broken stdout, a full
## disk, a deaf board), then the history under load (100 000 call/hangup pairs as fast as the socket takes them, as
## is and beside two CPU-bound processes, and with the history file removed mid-run); writes soak-results.json and
## fails if a ring overran, a hangup, command or record was lost, a deaf board was not played again, the daemon
## died, or a call is missing from the history or has the wrong outcome
soak: deps
	@Tools/scripts/soak.sh

## fuzz: libFuzzer over the stream decoder, the pattern file parser, push payloads / control lines, and the FRITZ!Box
## and AMI streams, FUZZ_SECONDS (default 60) each; FUZZ_TARGETS="decoder patterns push fritzbox ami" picks some
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) Tools/scripts/fuzz.sh

## fuzz-long: the long mode, ten million executions per target, shared among one fuzzer process per core
## (FUZZ_JOBS; hours on 2 cores; not in CI)
fuzz-long: deps
	FUZZ_RUNS=$${FUZZ_RUNS:-10000000} FUZZ_JOBS=$${FUZZ_JOBS:-$$(nproc)} Tools/scripts/fuzz.sh

## firmware: the board firmware (Embedded Swift, same core as the virtual board) for every board: mps2-an386
## (QEMU), microbit-v1, microbit-v2; BOARD=... builds one. Writes firmware/build/callalert-BOARD.elf and .hex
## and prints flash and RAM per board (docs/HARDWARE.md)
firmware:
	@$(MAKE) --no-print-directory -C firmware

## qemu: run the firmware in QEMU with its UART on a pseudo-terminal (Ctrl-C stops it); QEMU_ARGS for more,
## e.g. make qemu QEMU_ARGS="--link /tmp/callalert-qemu"
qemu: firmware
	$(SWIFT) run callalert board qemu $(QEMU_ARGS)

## firmware-check: compile the codec and the board core as Embedded Swift for armv7em (-Werror EmbeddedRestrictions)
firmware-check:
	@Tools/scripts/firmware-check.sh

format:
	$(SWIFT_FORMAT) format --configuration .swift-format --in-place --recursive Sources Tests Tools Package.swift

lint:
	$(SWIFT_FORMAT) lint --configuration .swift-format --strict --recursive Sources Tests Tools Package.swift

clean:
	rm -rf .build .build-* Benchmarks/.build fuzz-artifacts bench-results.json soak-results.json firmware/build \
	  Sources/CBuildInfo/revision.h
