#!/usr/bin/env bash
# The quick tier's front-end check: every subcommand once (exit 0, an
# answer), bad input (exit 2, one line), a JSON answer against the Gaussian
# closed form computed here, and the Python binding giving the CLI's digits
# for the same event (when python3 is there).  Seconds, not minutes: the
# full contract is test_cli.sh (suite full).
#
# usage: tests/test_cli_quick.sh PATH/TO/pldkit
set -u
BIN=${1:?usage: test_cli_quick.sh PATH/TO/pldkit}
. "$(dirname "$0")/cli_harness.sh"
here=$(cd "$(dirname "$0")/.." && pwd)

fails_with() { # STATUS ARGS...: exit STATUS, one stderr line, no stdout
  local want=$1
  shift
  run "$@"
  if [ "$rc" -ne "$want" ] || [ -s "$OUT" ] || [ "$(err_lines)" -ne 1 ]; then
    bad "exit $rc (want $want, one line): pldkit $*"
  else
    ok
  fi
}

expect_ok "epsilon" epsilon --delta 1e-5 poisson-gaussian:q=0.01,sigma=1,count=100
expect_ok "delta" delta --epsilon 1 laplace:b=2,count=3
expect_ok "curve" curve --epsilon-range 0:2:3 gaussian:sigma=2
expect_ok "calibrate" calibrate --epsilon 2 --delta 1e-5 'gaussian:sigma=?,count=2'
expect_ok "rdp-curve" rdp-curve --orders 2,4 gaussian:sigma=1
expect_ok "backend both" epsilon --delta 1e-5 --backend both gaussian:sigma=3
expect_ok "selection" epsilon --delta 1e-5 \
  'random-selection:weights=0.5;0.5[gaussian:sigma=2|laplace:b=1]'
expect_ok "events" events
expect_ok "help" help gaussian
expect_ok "save" save --out "$tmp/l.pld" gaussian:sigma=2
expect_ok "ledger add" ledger add "$tmp/l.pld" gaussian:sigma=3
expect_ok "ledger show" ledger show "$tmp/l.pld" --delta 1e-5
expect_ok "saved PLD" epsilon --delta 1e-5 "pld:file=$tmp/l.pld"

fails_with 2 epsilon --delta 1e-5 gaussian:sigma=-1
fails_with 2 epsilon --delta 1e-5 'gaussian:sigma=?'
fails_with 2 epsilon --delta 2 gaussian:sigma=1
fails_with 2 epsilon --delta 1e-5 nope:x=1
fails_with 2 calibrate --epsilon 1 --delta 1e-5 gaussian:sigma=1

# Two Gaussians (sigma 2, 3 times; sigma 4) compose to mu^2 = 3/4 + 1/16:
# the JSON bracket holds the closed form delta(1).
if run delta --json --epsilon 1 gaussian:sigma=2,count=3 gaussian:sigma=4 &&
   [ "$rc" -eq 0 ] && python3 - "$OUT" <<'EOF'; then ok; else bad "closed form"; fi
import json, math, sys
j = json.load(open(sys.argv[1]))
mu = math.sqrt(3 / 4 + 1 / 16)
phi = lambda x: 0.5 * math.erfc(-x / math.sqrt(2))
d = phi(-1 / mu + mu / 2) - math.exp(1) * phi(-1 / mu - mu / 2)
lo, hi = j["delta_lower"], j["delta_upper"]
assert lo <= d * (1 + 1e-9) and hi >= d * (1 - 1e-9) and hi <= 1.001 * d, (lo, hi, d)
EOF

# Python: the same event, the same digits (not for a sanitizer build, whose
# runtime would have to be loaded before python's own libraries).
lib=$(dirname "$BIN")/libpldkit.so
if command -v python3 >/dev/null 2>&1 && [ -e "$lib" ] &&
   ! ldd "$lib" 2>/dev/null | grep -q 'lib[at]san'; then
  run epsilon --json --delta 1e-5 poisson-gaussian:q=0.02,sigma=1.2,count=50
  if [ -e "$lib" ] && PYTHONPATH="$here/python" PLDKIT_LIBRARY="$lib" \
     python3 - "$OUT" <<'EOF'; then ok; else bad "python parity"; fi
import json, sys
import pldkit
j = json.load(open(sys.argv[1]))
r = pldkit.epsilon(1e-5, "poisson-gaussian:q=0.02,sigma=1.2,count=50")
assert (r.lower, r.upper) == (j["epsilon_lower"], j["epsilon_upper"]), (r, j)
EOF
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
