# Shared harness of the CLI test scripts (sourced, not run): a scratch
# directory, pass/fail counters and the checks every script uses.
# The caller sets BIN (the pldkit binary) before sourcing.
export LC_ALL=C
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
OUT=$tmp/out
ERR=$tmp/err

ok() { pass=$((pass + 1)); }
bad() {
  fail=$((fail + 1))
  echo "FAIL: $*"
  if [ -s "$ERR" ]; then sed 's/^/  stderr: /' "$ERR" | head -n 5; fi
}

run() { "$BIN" "$@" >"$OUT" 2>"$ERR"; rc=$?; }

# Lines on stderr, counting an unterminated last line too.
err_lines() { awk 'END { print NR }' "$ERR"; }

# expect_ok DESCRIPTION ARGS...: exit 0, empty stderr, non-empty stdout.
expect_ok() {
  local what=$1
  shift
  run "$@"
  if [ "$rc" -ne 0 ]; then
    bad "$what: exit $rc (want 0): pldkit $*"
    return 1
  fi
  if [ -s "$ERR" ]; then
    bad "$what: stderr not empty: pldkit $*"
    return 1
  fi
  if [ ! -s "$OUT" ]; then
    bad "$what: no output: pldkit $*"
    return 1
  fi
  ok
  return 0
}

# expect_warn DESCRIPTION NEEDLE ARGS...: exit 0, an answer on stdout with no
# warning in it, and every stderr line a "pldkit: warning: ..." (at least
# one), one of them containing NEEDLE (a fixed string).
expect_warn() {
  local what=$1 needle=$2
  shift 2
  run "$@"
  if [ "$rc" -ne 0 ]; then bad "$what: exit $rc (want 0): pldkit $*"; return 1; fi
  if [ ! -s "$OUT" ]; then bad "$what: no output: pldkit $*"; return 1; fi
  if grep -q 'warning' "$OUT" && ! grep -q '"warnings"' "$OUT"; then
    bad "$what: a warning on stdout: pldkit $*"; return 1
  fi
  if [ ! -s "$ERR" ] || grep -qv '^pldkit: warning: ' "$ERR"; then
    bad "$what: stderr is not only warnings: pldkit $*"; return 1
  fi
  if ! grep -qF -- "$needle" "$ERR"; then
    bad "$what: no warning mentions \"$needle\": pldkit $*"; return 1
  fi
  ok
  return 0
}

# expect_answer DESCRIPTION ARGS...: as expect_ok, but stderr may hold
# warnings ("pldkit: warning: ..." lines, nothing else).
expect_answer() {
  local what=$1
  shift
  run "$@"
  if [ "$rc" -ne 0 ]; then bad "$what: exit $rc (want 0): pldkit $*"; return 1; fi
  if [ ! -s "$OUT" ]; then bad "$what: no output: pldkit $*"; return 1; fi
  if [ -s "$ERR" ] && grep -qv '^pldkit: warning: ' "$ERR"; then
    bad "$what: stderr is not only warnings: pldkit $*"; return 1
  fi
  ok
  return 0
}
