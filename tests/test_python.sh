#!/usr/bin/env bash
# The Python binding's test suite (python/tests), run with the system python3:
# pytest if it is installed, else unittest.  Prints a final line
# "N passed, M failed" and exits non-zero if anything failed.
#
# usage: tests/test_python.sh [PATH/TO/libpldkit.so [PATH/TO/pldkit]]
#   $1  the library to test (exported as PLDKIT_LIBRARY); without it the
#       package finds build/libpldkit.so of this checkout itself
#   $2  the CLI used for the parity checks (PLDKIT_CLI); default: the
#       `pldkit` next to the library
# Environment: PLDKIT_PYTHON (default python3) picks the interpreter,
# PLDKIT_TEST_RUNNER=unittest|pytest forces a runner.
set -u

abspath() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }

if [ $# -ge 1 ] && [ -n "$1" ]; then
  PLDKIT_LIBRARY=$(abspath "$1")
  export PLDKIT_LIBRARY
  if [ ! -e "$PLDKIT_LIBRARY" ]; then
    echo "test_python.sh: no library at $PLDKIT_LIBRARY"
    echo "0 passed, 1 failed"
    exit 1
  fi
fi
if [ $# -ge 2 ] && [ -n "$2" ]; then
  PLDKIT_CLI=$(abspath "$2")
  export PLDKIT_CLI
fi

# A library built with -Db_sanitize=address,undefined (make test's second
# pass) can only be loaded into an uninstrumented python3 with the
# sanitizer runtimes preloaded.  Python itself leaks by design, so leak
# detection is off there, and the binding's own leak tests (which measure
# the heap and RSS) are skipped: ASan quarantines freed memory.
if [ -n "${PLDKIT_LIBRARY:-}" ] && command -v ldd >/dev/null 2>&1; then
  san=$(ldd "$PLDKIT_LIBRARY" 2>/dev/null | awk '/lib(asan|ubsan)\.so/ && $3 ~ /^\// { print $3 }' | sort | paste -sd: -)
  if [ -n "$san" ]; then
    export LD_PRELOAD="$san${LD_PRELOAD:+:$LD_PRELOAD}"
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    export PLDKIT_TEST_SANITIZED=1
    echo "sanitized library: preloading $san"
  fi
fi

cd "$(dirname "$0")/.." || exit 1
PY=${PLDKIT_PYTHON:-python3}
export LC_ALL=C PYTHONPATH=python${PYTHONPATH:+:$PYTHONPATH}
export PYTHONDONTWRITEBYTECODE=1   # keep the source tree clean

if ! command -v "$PY" >/dev/null 2>&1; then
  echo "test_python.sh: $PY not found"
  echo "0 passed, 1 failed"
  exit 1
fi

runner=${PLDKIT_TEST_RUNNER:-}
if [ -z "$runner" ]; then
  if "$PY" -c 'import pytest' >/dev/null 2>&1; then runner=pytest; else runner=unittest; fi
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$PY" -c 'import sys; print("python", sys.version.split()[0], end="; ")
try:
    import numpy; print("numpy", numpy.__version__)
except ImportError:
    print("numpy not installed (numpy tests skipped)")'

if [ "$runner" = pytest ]; then
  "$PY" -m pytest -v -p no:cacheprovider python/tests 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  summary=$(grep -E '^=+ .*(passed|failed|error|skipped|no tests ran).* =+$' "$log" | tail -n 1)
  count() { printf '%s\n' "$summary" | grep -oE "[0-9]+ $1" | grep -oE '^[0-9]+' || echo 0; }
  passed=$(count passed)
  failed=$(( $(count failed) + $(count 'errors?') ))
  skipped=$(count skipped)
else
  "$PY" -m unittest discover -s python/tests -v 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  total=$(sed -nE 's/^Ran ([0-9]+) tests? in .*/\1/p' "$log" | tail -n 1)
  total=${total:-0}
  last=$(grep -E '^(OK|FAILED)( \(.*\))?$' "$log" | tail -n 1)
  field() { printf '%s\n' "$last" | grep -oE "$1=[0-9]+" | grep -oE '[0-9]+$' || echo 0; }
  failed=$(( $(field failures) + $(field errors) + $(field 'unexpected successes') ))
  skipped=$(( $(field skipped) + $(field 'expected failures') ))
  passed=$(( total - failed - skipped ))
fi

if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
  failed=1   # the runner itself failed (import error, crash, ...)
fi
if [ "$passed" -eq 0 ] && [ "$failed" -eq 0 ]; then
  echo "test_python.sh: no test ran"
  failed=1
fi
echo "runner: $runner; $skipped skipped"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$rc" -eq 0 ]
