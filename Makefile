# pldkit: thin wrapper around meson.  `make demo` and `make test` bootstrap a
# fresh Debian 12 machine (installing missing packages as root), configure
# build/, compile, and run the demo or the test suite.

PKGS := meson ninja-build pkg-config gcc libfftw3-dev libgsl-dev libcmocka-dev valgrind
BUILD := build

.PHONY: all deps configure demo test bench clean

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

demo: all
	./$(BUILD)/pldkit demo

# The whole suite, then again under AddressSanitizer + UndefinedBehavior-
# Sanitizer (any report fails the run), then the CLI under valgrind.
SAN := build-sanitize
test: all
	meson test -C $(BUILD) --print-errorlogs
	@if [ ! -f $(SAN)/build.ninja ]; then \
	  meson setup $(SAN) --buildtype=debugoptimized -Db_sanitize=address,undefined \
	    -Db_lundef=false -Dbench=false; fi
	ninja -C $(SAN)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  meson test -C $(SAN) --print-errorlogs --num-processes 2 -t 4
	PLDKIT_TEST_VALGRIND=1 bash tests/test_cli.sh $(BUILD)/pldkit

bench: all
	mkdir -p bench/results
	./$(BUILD)/bench/bench_core bench/results/core.csv

clean:
	rm -rf $(BUILD) $(SAN)
