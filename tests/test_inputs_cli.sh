#!/usr/bin/env bash
# Issue 32, item 6: inputs refused up front with messages that name the real
# key (merge configs, --events-json, thm41's d), the file errors' own exit
# code (3, not 2's "bad input"), and a warning whenever no grid within
# --max-grid could be composed.
#
# usage: tests/test_inputs_cli.sh PATH/TO/pldkit
set -u

BIN=${1:?usage: test_inputs_cli.sh PATH/TO/pldkit}
. "$(dirname "$0")/cli_harness.sh"

# expect_refused DESCRIPTION WORD ARGS...: exit 2 at once (< 2 s), one line
# on stderr containing WORD, nothing on stdout.
expect_refused() {
  local what=$1 word=$2
  shift 2
  local t0 t1
  t0=$(date +%s%N)
  run "$@"
  t1=$(date +%s%N)
  if [ "$rc" -ne 2 ] || [ -s "$OUT" ] || [ "$(err_lines)" -ne 1 ] ||
     ! grep -qF -- "$word" "$ERR" || [ $(((t1 - t0) / 1000000)) -gt 2000 ]; then
    bad "$what: exit $rc in $(((t1 - t0) / 1000000)) ms (want 2 at once, one line with '$word'): pldkit $*"
    return 1
  fi
  ok
}

run_cfg() { # run_cfg FILE JSON: write a merge config
  printf '%s\n' "$2" >"$1"
}
R1='{"q": 0.01, "sigma": 1, "clip": 1, "lr": 0.1, "steps": 10}'
run_cfg "$tmp/lr.json" '{"delta": 1e-5, "runs": [{"q": 0.01, "sigma": 1, "clip": 1, "lr": 1e-320, "steps": 10}, '"$R1"']}'
expect_refused "merge lr = 1e-320" "runs[0].lr" merge --config "$tmp/lr.json" --epsilon 3
run_cfg "$tmp/clip.json" '{"delta": 1e-5, "runs": [{"q": 0.01, "sigma": 1, "clip": 1e300, "lr": 0.1, "steps": 10}, '"$R1"']}'
expect_refused "merge clip = 1e300" "runs[0].clip" merge --config "$tmp/clip.json" --epsilon 3
if grep -q "sigma = inf" "$ERR"; then bad "clip = 1e300 blamed on sigma"; else ok; fi
run_cfg "$tmp/prod.json" '{"delta": 1e-5, "runs": [{"q": 0.01, "sigma": 1e60, "clip": 1e30, "lr": 1e30, "steps": 10}, '"$R1"']}'
expect_refused "merge lr sigma clip = 1e120" "lr * sigma * clip" merge --config "$tmp/prod.json" --epsilon 3
run_cfg "$tmp/delta.json" '{"delta": 5e-324, "runs": ['"$R1"', '"$R1"']}'
expect_refused "merge delta = 5e-324" "delta" merge --config "$tmp/delta.json" --epsilon 3
run_cfg "$tmp/ok.json" '{"delta": 1e-5, "runs": ['"$R1"', '"$R1"']}'
expect_refused "merge --delta 1e-200" "--delta" merge --config "$tmp/ok.json" --epsilon 3 --delta 1e-200

# --events-json: a cap on the number of events, refused before any work
python3 -c '
import json, sys
ev = {"class_name": "ComposedDpEvent", "events":
      [{"class_name": "GaussianDpEvent", "noise_multiplier": 1}] * 10001}
json.dump(ev, open(sys.argv[1], "w"))
' "$tmp/many.json"
expect_refused "--events-json with 10001 events" "at most 10000" epsilon --delta 1e-5 --events-json "$tmp/many.json"

# thm41's cost grows with d: capped where it would take minutes
expect_refused "thm41 d = 1e9" "analysis=thm41" epsilon --delta 1e-6 \
  random-participation:p=0.1,q=0.1,d=1000000000,C=1,sigma=1,analysis=thm41

# no grid within --max-grid: the answer says so
expect_warn "no grid under --max-grid 16" "--max-grid 16" epsilon --delta 1e-5 --max-grid 16 --json laplace:b=1,count=10
if grep -q '"warnings": \[\]' "$OUT"; then bad "--max-grid 16: empty warnings list"; else ok; fi

# a file that cannot be written for the machine's reasons exits 3 (here the
# file size limit: EFBIG), the old file intact, no temporary left
"$BIN" save --discretization 0.01 --out "$tmp/big.pld" laplace:b=1 >/dev/null
cp "$tmp/big.pld" "$tmp/big.orig"
(ulimit -f 1; trap '' XFSZ; "$BIN" save --discretization 0.001 --out "$tmp/big.pld" laplace:b=1 >"$OUT" 2>"$ERR"; echo $? >"$tmp/rc")
rc=$(cat "$tmp/rc")
if [ "$rc" -eq 3 ] && grep -q "File too large" "$ERR" && cmp -s "$tmp/big.pld" "$tmp/big.orig" &&
   ! ls -a "$tmp" | grep -q '\.tmp$'; then ok; else
  bad "write failure: exit $rc (want 3): $(cat "$ERR")"; fi
# a directory the user cannot write is the user's input: exit 2, and the
# message names the real cause (checked as another user where root runs)
if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null; then
  mkdir "$tmp/ro"
  chmod 755 "$tmp" "$tmp/ro"
  runuser -u nobody -- "$BIN" ledger add "$tmp/ro/x.pld" --create laplace:b=1 >"$OUT" 2>"$ERR"
  rc=$?
  if [ "$rc" -eq 2 ] && grep -q "Permission denied" "$ERR" &&
     ! grep -q "No such file" "$ERR"; then ok; else
    bad "read-only directory: exit $rc: $(cat "$ERR")"; fi
  chmod 700 "$tmp"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
