#!/usr/bin/env bash
# Random allocation under the default PLD backend: balanced-iteration
# (BIS) and model-splitting with k = 1, composed with other events,
# calibrated, against independent values on both sides: the Gaussian
# closed form (d = 1, computed here), the Monte Carlo values of issue 12
# (T = 10: 2.1887 +- 0.001 for k = 1, 2.685 for k = 4, sigma = 2) and
# RA_PLD's published bracket for T = 1000 ([0.132, 0.142]).
#
# usage: tests/test_allocation_cli.sh PATH/TO/pldkit
set -u

BIN=${1:?usage: test_allocation_cli.sh PATH/TO/pldkit}
. "$(dirname "$0")/cli_harness.sh"

# eps_json NAME ARGS...: run an epsilon query with --json, keep lo/hi.
eps() {
  local name=$1
  shift
  if expect_answer "$name" epsilon --json --delta 1e-5 "$@"; then
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["epsilon_lower"], d["epsilon_upper"])' "$OUT" >"$tmp/$name"
  else
    echo "nan nan" >"$tmp/$name"
  fi
}
# check NAME PYTHON-CONDITION on lo, hi
check() {
  local name=$1 cond=$2
  if python3 -c "
import math,sys
lo,hi=map(float,open('$tmp/$name').read().split())
sys.exit(0 if ($cond) else 1)"; then ok; else bad "$name: [$(cat "$tmp/$name")] fails $cond"; fi
}

# T = 10, k = 1: the exact value 2.1887 (Monte Carlo, 3 s.e. 1e-3) inside,
# and the bracket narrow.
eps bis10 balanced-iteration:T=10,k=1,sigma=1,c=1
check bis10 "hi >= 2.1877 and lo <= 2.1897 and hi <= 2.1887 * 1.005 and hi - lo <= 0.005 * hi"

# T = 1000, k = 1: inside RA_PLD's certified bracket, at most 0.5% wide.
eps bis1000 balanced-iteration:T=1000,k=1,sigma=1,c=1
check bis1000 "lo >= 0.132 and hi <= 0.142 and hi - lo <= 0.005 * hi"

# T = 10, k = 4, sigma = 2: the upper end (two blocks of two of five,
# docs/allocation.md) is above the exact 2.685 and within 1% of it (RA_PLD:
# 2.807); the lower end (a projection of the run: the summed output's
# Gaussian times a Gaussian mixture) below the exact value.  k = 5, sigma = 1: above the exact 8.251, below RA_PLD's 8.852.
eps bis10k4 balanced-iteration:T=10,k=4,sigma=2,c=1
check bis10k4 "2.685 <= hi <= 2.685 * 1.01 and lo <= 2.685"
eps bis10k5 balanced-iteration:T=10,k=5,sigma=1,c=1
check bis10k5 "8.251 <= hi <= 8.852 and lo <= 8.251"
# its bracket is the reduction's, not the grid's: JSON says so (and for
# k = 1, where the grid meets the target, that the grid decides)
limit() {
  local name=$1 want=$2 met=$3
  shift 3
  if expect_answer "$name width_limit" epsilon --json --delta 1e-5 "$@"; then
    if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["width_limit"] == sys.argv[2] and d["met_accuracy"] == (sys.argv[3] == "1") else 1)' "$OUT" "$want" "$met"; then ok; else bad "$name: width_limit/met_accuracy not $want/$met"; fi
  fi
}
limit bis10k4 mechanism 0 balanced-iteration:T=10,k=4,sigma=2,c=1
limit bis10 grid 1 balanced-iteration:T=10,k=1,sigma=1,c=1

# eps_of_py: the epsilon at delta = 1e-5 of the curve d(e) that the
# Python text on stdin defines (P is the normal CDF), by bisection.
eps_of_py() {
  { cat <<'PY'
import math
P = lambda x: 0.5 * math.erfc(-x / math.sqrt(2))
PY
    cat
    cat <<'PY'
lo, hi = 0.0, 20.0
for _ in range(200):
    m = (lo + hi) / 2
    lo, hi = (m, hi) if d(m) > 1e-5 else (lo, m)
print(hi)
PY
  } | python3 -
}

# model-splitting with d = 1 is the Gaussian mechanism: its closed form,
# Phi(mu/2 - e/mu) - e^e Phi(-mu/2 - e/mu).
G=$(eps_of_py <<'PY'
def d(e, mu=1.0):
    return P(mu / 2 - e / mu) - math.exp(e) * P(-mu / 2 - e / mu)
PY
)
eps split1 model-splitting:d=1,k=1,sigma=1,c=1
check split1 "abs(hi - $G) <= 1e-9 * $G and abs(lo - $G) <= 1e-9 * $G"
# d = 2 (dropout) is the one-of-2 allocation: the same as BIS with T = 2.
eps split2 model-splitting:d=2,k=1,sigma=1,c=1
eps bis2 balanced-iteration:T=2,k=1,sigma=1,c=1
if [ "$(cat "$tmp/split2")" = "$(cat "$tmp/bis2")" ]; then ok; else bad "dropout != BIS T=2: $(cat "$tmp/split2") vs $(cat "$tmp/bis2")"; fi
check split2 "lo < $G and hi < $G"

# Composition: with a Gaussian (sigma = 10) the epsilon grows, and with
# count=2 too; both stay below the Gaussian pieces' plain sum bound.
eps comp 'balanced-iteration:T=1000,k=1,sigma=1,c=1+gaussian:sigma=10'
check comp "lo > 0.139 and hi < 0.139 + 0.5"
eps twice 'balanced-iteration:T=1000,k=1,sigma=1,c=1,count=2'
check twice "lo > 0.1387 and hi < 2 * 0.1390"

# k > 1 of d blocks (docs/allocation.md "Model splitting with k > 1").
# clip=block (the default) is the k-of-d allocation: the same answer as
# balanced-iteration with T = d, digit for digit.
run epsilon --delta 1e-5 model-splitting:d=4,k=2,sigma=1,c=1
cp "$OUT" "$tmp/ms42"
run epsilon --delta 1e-5 balanced-iteration:T=4,k=2,sigma=1,c=1
if sed 's/, [0-9.]* s;/;/' "$tmp/ms42" | cmp -s - <(sed 's/, [0-9.]* s;/;/' "$OUT"); then ok; else bad "model-splitting d=4,k=2 != BIS T=4,k=2: $(cat "$tmp/ms42") / $(cat "$OUT")"; fi
# clip=total with k = d: one gradient of norm c in all blocks, the Gaussian.
eps tot33 model-splitting:d=3,k=3,sigma=1,c=1,clip=total
check tot33 "abs(hi - $G) <= 1e-9 * $G and abs(lo - $G) <= 1e-9 * $G"
# clip=total, 1 < k < d: the upper end at most the Gaussian's and the
# allocation's, at least the epsilon of Poisson sampling at rate k/d with
# the whole shift (a gradient in one block reaches it), computed here in
# closed form (both directions: the loss is monotone in the one coordinate),
# and the lower end at most that and within 1% of it.
PG=$(eps_of_py <<'PY'
q, mu = 0.2, 1.0
def d(e):
    xs = (math.log((math.exp(e) - 1 + q) / q) + mu * mu / 2) / mu
    rem = q * P(mu - xs) + (1 - q) * P(-xs) - math.exp(e) * P(-xs)
    add = 0.0
    if math.exp(-e) > 1 - q:
        xa = (math.log((math.exp(-e) - 1 + q) / q) + mu * mu / 2) / mu
        add = P(xa) - math.exp(e) * (q * P(xa - mu) + (1 - q) * P(xa))
    return max(rem, add)
PY
)
eps tot102 model-splitting:d=10,k=2,sigma=1,c=1,clip=total
eps bis102 balanced-iteration:T=10,k=2,sigma=1,c=1
B102=$(python3 -c "import sys; print(open(sys.argv[1]).read().split()[1])" "$tmp/bis102")
check tot102 "hi <= min($G, $B102) * (1 + 1e-3) and hi >= $PG and lo <= $PG and lo >= 0.99 * $PG"
# the RDP under clip=total is at most the clip=block one (the Gaussian's
# alpha c^2 / (2 sigma^2) where smaller)
run epsilon --backend rdp --delta 1e-5 --json model-splitting:d=4,k=2,sigma=1,c=1,clip=total
cp "$OUT" "$tmp/rt"
run epsilon --backend rdp --delta 1e-5 --json model-splitting:d=4,k=2,sigma=1,c=1
if python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["rdp_epsilon"]; b=json.load(open(sys.argv[2]))["rdp_epsilon"]; sys.exit(0 if 0 < a < b else 1)' "$tmp/rt" "$OUT"; then ok; else bad "rdp clip=total not below clip=block"; fi
# ... and it works under --backend rdp, above the PLD for k = 1.
run epsilon --backend rdp --delta 1e-5 balanced-iteration:T=1000,k=1,sigma=1,c=1
if [ "$rc" -eq 0 ]; then ok; else bad "rdp backend: rc $rc"; fi

# The RDP second opinion of an answer that misses its accuracy (k > 1):
# computed only where its cheap lower curve (the forward terms alone) can
# beat the PLD upper end (catalogue/query.c).  Where RDP wins, the answer's
# upper end is the --backend rdp answer exactly; where it is skipped, that
# answer is indeed not below the PLD upper end.
# pair NAME DELTA EVENTS...: PLD and RDP backend answers, "hi kind rdp".
pair() {
  local name=$1 dl=$2
  shift 2
  if expect_answer "$name" epsilon --json --delta "$dl" "$@"; then
    cp "$OUT" "$tmp/$name.pld"
    if expect_answer "$name-rdp" epsilon --json --backend rdp --delta "$dl" "$@"; then
      python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); r=json.load(open(sys.argv[2])); print(repr(p["epsilon_upper"]), p["bound_kind"], repr(r["epsilon_upper"]))' "$tmp/$name.pld" "$OUT" >"$tmp/$name"
      return
    fi
  fi
  echo "nan none nan" >"$tmp/$name"
}
pcheck() {
  local name=$1 cond=$2
  if python3 -c "
import sys
hi,kind,rdp=open('$tmp/$name').read().split()
hi=float(hi); rdp=float(rdp)
sys.exit(0 if ($cond) else 1)"; then ok; else bad "$name: [$(cat "$tmp/$name")] fails $cond"; fi
}
# (T = 10, k = 5 at 1e-12: the RDP 14.027 is below the blocks' PLD; T = 20,
# k = 2, where RDP won over the groups, is now a block of two that beats
# it: PLD 5.661 against RDP 6.054)
pair rdpwins 1e-12 balanced-iteration:T=10,k=5,sigma=1,c=1
pcheck rdpwins "kind == 'rdp' and hi == rdp and 13.9 < hi < 14.2"
pair rdpwins2 1e-12 'balanced-iteration:T=10,k=5,sigma=1,c=1+gaussian:sigma=30'
pcheck rdpwins2 "kind == 'rdp' and hi == rdp and 13.9 < hi < 14.3"
pair blockwins 1e-12 balanced-iteration:T=20,k=2,sigma=1,c=1
pcheck blockwins "kind != 'rdp' and 5.6 < hi < rdp and 6.0 < rdp < 6.1"
pair rdploses 1e-5 balanced-iteration:T=2000,k=3,sigma=1,c=1
pcheck rdploses "kind != 'rdp' and 0.30 < hi < rdp and 0.7 < rdp < 0.8"

# Calibration through the PLD: the sigma found meets the target (upper <=
# 0.5), a sigma 1% smaller certifiably does not (lower > 0.5), each
# checked by a fresh epsilon query.
if expect_ok calibrate calibrate --json --epsilon 0.5 --delta 1e-5 'balanced-iteration:T=1000,k=1,sigma=?,c=1'; then
  S=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["value"])' "$OUT")
  S2=$(python3 -c "print($S * 0.99)")
  eps cal_at "balanced-iteration:T=1000,k=1,sigma=$S,c=1"
  check cal_at "hi <= 0.5"
  eps cal_below "balanced-iteration:T=1000,k=1,sigma=$S2,c=1"
  check cal_below "lo > 0.5"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
