# pldkit: thin wrapper around meson.  `make demo` and `make test` bootstrap a
# fresh Debian 12 machine (installing missing packages as root), configure
# build/, compile, and run the demo or the test suite.

PKGS := meson ninja-build pkg-config gcc g++ libfftw3-dev libgsl-dev libcmocka-dev libjansson-dev valgrind
BUILD := build

.PHONY: all deps configure demo quick test tsan bench figures fuzz clean python-install install uninstall

all: configure
	ninja -C $(BUILD)

deps:
	@missing=""; for p in $(PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" -ne 0 ]; then \
	    echo "pldkit needs these Debian packages; run as root:"; \
	    echo "  apt-get update && apt-get install -y$$missing"; exit 1; \
	  fi; \
	  echo "installing:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$$missing; \
	fi

configure: deps
	@if [ ! -f $(BUILD)/build.ninja ]; then meson setup $(BUILD) --buildtype=release; fi

# the library and the CLI only (tests, benches and fuzz replayers are built
# by `make test` / `make bench`)
demo: configure
	ninja -C $(BUILD) pldkit
	./$(BUILD)/pldkit demo

# The tiers (tests/meson.build): `make quick` is the inner loop (meson test
# --suite quick: every layer in under a minute); `make test` is everything a
# change must pass: the quick and full suites, the quick suite again under
# AddressSanitizer + UndefinedBehaviorSanitizer (any report fails the run),
# a representative set of CLI commands under valgrind, and the threaded
# tests under ThreadSanitizer.  Measured times: bench/results/test_tiers.txt.
SAN := build-sanitize
quick: all
	meson test -C $(BUILD) --suite quick --print-errorlogs

test: all
	meson test -C $(BUILD) --print-errorlogs
	@if [ ! -f $(SAN)/build.ninja ]; then \
	  meson setup $(SAN) --buildtype=debugoptimized -Db_sanitize=address,undefined \
	    -Db_lundef=false -Dbench=false; fi
	ninja -C $(SAN)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  meson test -C $(SAN) --suite quick --print-errorlogs --num-processes 2 -t 4
	bash tests/test_valgrind.sh $(BUILD)/pldkit 0 2 & v0=$$!; \
	  bash tests/test_valgrind.sh $(BUILD)/pldkit 1 2; v1=$$?; \
	  wait $$v0 && [ $$v1 -eq 0 ]
	$(MAKE) --no-print-directory tsan

# ThreadSanitizer (issue 13): pldkit from several threads at once -- a host
# program planning FFTW transforms while pldkit composes (test_fftw_host),
# concurrent accountants, per-thread error details and progress hooks
# (test_concurrent).  Any report fails the run.  Under a minute with the
# build (20 s to run on 2 busy cores), so `make test` runs it too.
TSAN := build-tsan
TSAN_TESTS := tests/test_fftw_host tests/test_concurrent
tsan: deps
	@if [ ! -f $(TSAN)/build.ninja ]; then \
	  meson setup $(TSAN) --buildtype=debugoptimized -Db_sanitize=thread \
	    -Db_lundef=false -Dbench=false; fi
	ninja -C $(TSAN) $(TSAN_TESTS)
	@for t in $(TSAN_TESTS); do \
	  echo "tsan: $$t"; \
	  TSAN_OPTIONS=halt_on_error=1:abort_on_error=1:history_size=4 ./$(TSAN)/$$t || exit 1; \
	done

# The Python binding, offline, with Debian's own Python (/usr/bin/python3,
# not whatever python3 is first on PATH) and Debian's pip, setuptools and
# wheel (installed if missing): no build isolation and no index, so nothing
# is downloaded.  In a virtualenv ($$VIRTUAL_ENV set) it installs there with
# that environment's python; otherwise into /usr/local (Debian 12 marks its
# python "externally managed", hence --break-system-packages: the package
# is pure Python with no dependencies).  The package loads the C library
# that `make install` puts in place (or PLDKIT_LIBRARY); without it
# `import pldkit` fails with a message saying so.
PYTHON ?= $(if $(VIRTUAL_ENV),$(VIRTUAL_ENV)/bin/python,/usr/bin/python3)
PIP_FLAGS ?= --no-build-isolation --no-index
python-install:
	@$(MAKE) --no-print-directory deps PKGS="python3-pip python3-setuptools python3-wheel"
	$(PYTHON) -m pip install $(PIP_FLAGS) $(if $(VIRTUAL_ENV),,--break-system-packages) ./python

# The performance report, the RDP-vs-PLD comparison and the other
# benchmarks: CSVs, plots and summary.txt in bench/results.  Never part of
# `make test`.
bench: all
	@$(MAKE) --no-print-directory deps PKGS=gnuplot-nox
	mkdir -p bench/results
	./$(BUILD)/bench/bench_perf bench/results/perf.csv | tee bench/results/summary.txt
	./$(BUILD)/bench/fig_rdp_vs_pld bench/results
	./$(BUILD)/bench/bench_rdp bench/results/rdp.csv | tee -a bench/results/summary.txt
	./$(BUILD)/bench/bench_mixtures | tee -a bench/results/summary.txt
	./$(BUILD)/bench/bench_merge | tee -a bench/results/summary.txt
	./$(BUILD)/bench/bench_hetero | tee -a bench/results/summary.txt
	python3 bench/rdp_vs_pld_summary.py bench/results | tee -a bench/results/summary.txt
	gnuplot -e "data='bench/results'; out='bench/results'" bench/perf.gp
	@echo "results: bench/results (perf.csv, rdp_vs_pld*.csv, *.png, summary.txt)"

# The papers' figures, regenerated (data, gnuplot, PNG in bench/figures).
figures: all
	@$(MAKE) --no-print-directory deps PKGS=gnuplot-nox
	bench/figures/run.sh $(BUILD)

# Fuzzers (clang's libFuzzer with ASan+UBSan): each target runs for
# FUZZ_SECONDS, adding what it finds to tests/fuzz/corpus/<target>.
FUZZ_SECONDS ?= 60
FUZZ := build-fuzz
fuzz: deps
	@command -v clang >/dev/null || { echo "make fuzz needs clang (apt-get install clang)"; exit 1; }
	@if [ ! -f $(FUZZ)/build.ninja ]; then CC=clang meson setup $(FUZZ) \
	  --buildtype=debugoptimized -Db_sanitize=address,undefined -Db_lundef=false \
	  -Dtests=false -Dbench=false -Dc_args=-fsanitize=fuzzer-no-link; fi
	ninja -C $(FUZZ) libpldkit.a
	@for t in $$(cd tests/fuzz && ls fuzz_*.c | sed 's/fuzz_\(.*\)\.c/\1/'); do \
	  extra=""; [ $$t = config ] && extra="cli/config.c cli/output.c cli/text.c $$(pkg-config --libs jansson)"; \
	  clang -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -I$(FUZZ)/include -Icli \
	    -D_POSIX_C_SOURCE=200809L tests/fuzz/fuzz_$$t.c $$extra $(FUZZ)/libpldkit.a \
	    $$(pkg-config --libs fftw3 gsl) -lfftw3_threads -lm -lpthread -o $(FUZZ)/fuzz_$$t || exit 1; \
	  mkdir -p tests/fuzz/corpus/$$t; \
	  $(FUZZ)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 tests/fuzz/corpus/$$t || exit 1; \
	done

# `make install [PREFIX=/usr/local] [DESTDIR=]`: the library, headers,
# pkg-config file, CLI and man page, through meson install; only those are
# built (not the tests, benches and fuzz replayers).  Installing to
# the system itself (no DESTDIR) as root refreshes the linker cache, so that
# programs and the Python binding find libpldkit.so.0 right away.
# `make uninstall` removes the files the last install wrote (meson's log,
# which holds the DESTDIR too) and the pldkit include directory.
PREFIX ?= /usr/local
INSTALL_TARGETS := pldkit:shared_library pldkit:static_library pldkit:executable
install: configure
	meson configure $(BUILD) --prefix=$(PREFIX)
	meson compile -C $(BUILD) $(INSTALL_TARGETS)
	DESTDIR="$(DESTDIR)" meson install -C $(BUILD) --no-rebuild
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" -eq 0 ]; then ldconfig; fi

uninstall:
	@log=$(BUILD)/meson-logs/install-log.txt; \
	if [ ! -f $$log ]; then echo "nothing to uninstall (no $$log)"; exit 1; fi; \
	grep -v '^#' $$log | while read -r f; do \
	  if [ -f "$$f" ] || [ -L "$$f" ]; then rm -f "$$f" && echo "removed $$f"; fi; \
	done; \
	grep -v '^#' $$log | while read -r f; do \
	  case $$f in */pldkit) [ -d "$$f" ] && rmdir "$$f" 2>/dev/null && echo "removed $$f/";; esac; \
	done; \
	case $$(head -3 $$log | grep -v '^#' | head -1) in /usr/*|/lib*|/opt/*) \
	  if [ "$$(id -u)" -eq 0 ]; then ldconfig; fi;; esac; true

clean:
	rm -rf $(BUILD) $(SAN) $(FUZZ) $(TSAN)
