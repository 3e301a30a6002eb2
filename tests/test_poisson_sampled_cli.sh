#!/usr/bin/env bash
# poisson-sampled:q=Q[EVENT], Poisson subsampling of any one mechanism
# event (catalogue/events_parse.c, pld_mech_poisson):
#  1. a gaussian member is poisson-gaussian, a laplace member poisson-laplace:
#     the same mechanism, so the same bits on both backends;
#  2. q = 1 is the member itself: the same bits as the member's own text;
#  3. a discrete-laplace member against delta(eps) computed here: the
#     subsampled pair P = (1-q) DL(0) + q DL(s), Q = DL(0) summed over the
#     integers (count 1), and its 3-class reduction composed exactly by a
#     multinomial sum (count 10);
#  4. bad inputs exit 2 with one line.
#
# usage: tests/test_poisson_sampled_cli.sh PATH/TO/pldkit
set -u

BIN=${1:?usage: test_poisson_sampled_cli.sh PATH/TO/pldkit}
. "$(dirname "$0")/cli_harness.sh"

expect_refused() {
  local what=$1 needle=$2
  shift 2
  run "$@"
  if [ "$rc" -ne 2 ] || [ -s "$OUT" ] || [ "$(err_lines)" -ne 1 ] ||
     [ "$(head -c 8 "$ERR")" != "pldkit: " ] || ! grep -qF -- "$needle" "$ERR"; then
    bad "$what: exit $rc (want 2, one line with '$needle'): pldkit $*"
    return 1
  fi
  ok
}

# "UPPER/LOWER" of the query's two ends in $OUT, in one python3 start
jpair() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("/".join(repr(None if d[sys.argv[2] + k] is None else float(d[sys.argv[2] + k])) for k in ("_upper", "_lower")))' "$OUT" "$1"; }

# expect_ans DESCRIPTION ARGS...: exit 0, an answer on stdout, stderr empty
# or only warnings (the RDP backend warns when its best order is the last).
expect_ans() {
  local what=$1
  shift
  run "$@"
  if [ "$rc" -ne 0 ] || [ ! -s "$OUT" ] ||
     { [ -s "$ERR" ] && grep -qv '^pldkit: warning: ' "$ERR"; }; then
    bad "$what: exit $rc (want 0 and an answer): pldkit $*"
    return 1
  fi
  ok
}

# the "key" number of $OUT (JSON), repr (null: None)
jnum() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))[sys.argv[2]]; print(repr(None if v is None else float(v)))' "$OUT" "$1"; }

# same_bits DESCRIPTION A B [OPTIONS...]: epsilon and delta, both ends, of
# EVENT A and EVENT B are equal to the last bit on --backend pld and rdp.
same_bits() {
  local what=$1 a=$2 b=$3 be q k x y
  shift 3
  for be in pld rdp; do
    for q in "epsilon --delta 1e-5" "delta --epsilon 0.5"; do
      # shellcheck disable=SC2086
      expect_ans "$what: $a" $q --json --backend "$be" "$@" "$a" || continue
      x=$(jpair "${q%% *}")
      # shellcheck disable=SC2086
      expect_ans "$what: $b" $q --json --backend "$be" "$@" "$b" || continue
      y=$(jpair "${q%% *}")
      if [ "$x" = "$y" ] && [ "${x%%/*}" != None ]; then ok; else
        bad "$what ($be, ${q%% *} upper/lower): $a gives $x, $b gives $y"; fi
    done
  done
}

# 1. the same mechanism, the same numbers
same_bits "gaussian member" 'poisson-sampled:q=0.01,count=1000[gaussian:sigma=1]' \
  poisson-gaussian:q=0.01,sigma=1,count=1000
same_bits "gaussian member, sensitivity" 'poisson-sampled:q=0.2,count=7[gaussian:sigma=3,sensitivity=2]' \
  poisson-gaussian:q=0.2,sigma=3,sensitivity=2,count=7
same_bits "laplace member" 'poisson-sampled:q=0.05,count=100[laplace:b=2]' \
  poisson-laplace:q=0.05,b=2,count=100
# the RDP of a gaussian member is the formula, not the bridge
expect_ok "gaussian member rdp" epsilon --delta 1e-5 --backend rdp 'poisson-sampled:q=0.01[gaussian:sigma=1]' &&
  if grep -q "bridge" "$OUT"; then bad "gaussian member went through the bridge"; else ok; fi
expect_ans "discrete-laplace member rdp" epsilon --delta 1e-5 --backend rdp 'poisson-sampled:q=0.1[discrete-laplace:scale=2]' &&
  if grep -q "1 event through the PLD bridge" "$OUT"; then ok; else bad "discrete-laplace member: no bridge"; fi

# 2. q = 1 is the member
same_bits "q=1 discrete-laplace" 'poisson-sampled:q=1,count=5[discrete-laplace:scale=2]' discrete-laplace:scale=2,count=5
same_bits "q=1 gaussian" 'poisson-sampled:q=1,count=3[gaussian:sigma=2]' gaussian:sigma=2,count=3
same_bits "q=1 finite" 'poisson-sampled:q=1,count=3[finite:p=0.5;0.3;0.2,q=0.3;0.3;0.4]' finite:p=0.5\;0.3\;0.2,q=0.3\;0.3\;0.4,count=3
same_bits "q=1 mixture" 'poisson-sampled:q=1,count=2[mixture-gaussian:sigma=1,p-means=0;1,p-weights=0.5;0.5,q-means=0,q-weights=1]' \
  'mixture-gaussian:sigma=1,p-means=0;1,p-weights=0.5;0.5,q-means=0,q-weights=1,count=2'
same_bits "q=1 bounded-gaussian" 'poisson-sampled:q=1,count=3[bounded-gaussian:kind=rectified,theta=0,a=2,sigma=1,c=1]' \
  bounded-gaussian:kind=rectified,theta=0,a=2,sigma=1,c=1,count=3
same_bits "q=1 discrete-gaussian" 'poisson-sampled:q=1,count=5[discrete-gaussian:sigma=3]' discrete-gaussian:sigma=3,count=5

# 3. discrete Laplace (scale 1, sensitivity 2) subsampled at q = 0.1 against
# delta(eps) computed here.  count 1: the exact hockey-stick sums over the
# integers in [-300, 302] (the rest weighs below e^-300), both directions;
# count 10: the loss depends only on the class k <= 0, 0 < k < 2, k >= 2,
# so the 10-fold pair is the multinomial over the three classes, summed
# exactly.  Tolerance: the certified upper end must be >= the value (less a
# relative 1e-12 for the sums' rounding) and within a relative 1e-6 of it;
# the lower end <= the value (plus 1e-12) and within the accuracy 2e-3.
check_dl() {
  local e=$1 n=$2
  expect_ok "discrete-laplace count=$n eps=$e" delta --epsilon "$e" --json \
    "poisson-sampled:q=0.1,count=$n[discrete-laplace:scale=1,sensitivity=2]" || return
  if python3 - "$e" "$n" "$(jnum delta_upper)" "$(jnum delta_lower)" <<'X'; then ok; else bad "discrete-laplace count=$n eps=$e: $(jnum delta_lower) .. $(jnum delta_upper)"; fi
import math, sys
E, n, up, lo = float(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
q, a, d = 0.1, 1.0, 2
c = (1 - math.exp(-a)) / (1 + math.exp(-a))
p = lambda k: c * math.exp(-a * abs(k))
K = range(-300, 303)
if n == 1:
    P = [(1 - q) * p(k) + q * p(k - d) for k in K]
    Q = [p(k) for k in K]
    hs = lambda A, B: math.fsum(max(0.0, x - math.exp(E) * y) for x, y in zip(A, B))
    true = max(hs(P, Q), hs(Q, P))
else:
    cls = lambda k: 0 if k <= 0 else (1 if k < d else 2)
    P, Q = [[], [], []], [[], [], []]
    for k in K:
        P[cls(k)].append((1 - q) * p(k) + q * p(k - d))
        Q[cls(k)].append(p(k))
    P = [math.fsum(v) for v in P]
    Q = [math.fsum(v) for v in Q]
    f = math.factorial
    def hs(A, B):
        t = []
        for i in range(n + 1):
            for j in range(n + 1 - i):
                l = n - i - j
                m = f(n) // (f(i) * f(j) * f(l))
                t.append(max(0.0, m * A[0]**i * A[1]**j * A[2]**l
                             - math.exp(E) * m * B[0]**i * B[1]**j * B[2]**l))
        return math.fsum(t)
    true = max(hs(P, Q), hs(Q, P))
ok = true * (1 - 1e-12) <= up <= true * (1 + 1e-6) and \
     true * (1 - 2e-3) <= lo <= true * (1 + 1e-12)
if not ok:
    print("true", true, "lower", lo, "upper", up)
sys.exit(0 if ok else 1)
X
}
for e in 0.05 0.2 0.4; do check_dl "$e" 1; done
for e in 0.5 1; do check_dl "$e" 10; done
# the RDP backend's bridge is sound: not below the PLD's lower end
expect_ok "discrete-laplace pld" epsilon --delta 1e-6 --json 'poisson-sampled:q=0.1,count=10[discrete-laplace:scale=1,sensitivity=2]' &&
  lo=$(jnum epsilon_lower) &&
  expect_ans "discrete-laplace rdp" epsilon --delta 1e-6 --json --backend rdp 'poisson-sampled:q=0.1,count=10[discrete-laplace:scale=1,sensitivity=2]' &&
  up=$(jnum epsilon_upper) &&
  if python3 -c "import sys; sys.exit(0 if $up >= $lo else 1)"; then ok; else bad "rdp $up below pld lower $lo"; fi

# 4. bad inputs: one line, exit 2
expect_refused "q=0" "q must be in (0, 1]" epsilon --delta 1e-5 'poisson-sampled:q=0[gaussian:sigma=1]'
expect_refused "q=1.5" "q must be in (0, 1]" epsilon --delta 1e-5 'poisson-sampled:q=1.5[gaussian:sigma=1]'
expect_refused "empty brackets" "empty member" epsilon --delta 1e-5 'poisson-sampled:q=0.1[]'
expect_refused "no brackets" "has no member" epsilon --delta 1e-5 'poisson-sampled:q=0.1'
expect_refused "two members" "several members" epsilon --delta 1e-5 'poisson-sampled:q=0.1[gaussian:sigma=1|laplace:b=1]'
expect_refused "a list member" "joined by '+'" epsilon --delta 1e-5 'poisson-sampled:q=0.1[gaussian:sigma=1+laplace:b=1]'
expect_refused "randomized-response member" "replace-one" epsilon --delta 1e-5 'poisson-sampled:q=0.1[randomized-response:epsilon=1,k=4]'
expect_refused "wor-gaussian member" "replace-one" epsilon --delta 1e-5 'poisson-sampled:q=0.1[wor-gaussian:batch=10,n=1000,sigma=1]'
expect_refused "counted member" "has a count" epsilon --delta 1e-5 'poisson-sampled:q=0.1[gaussian:sigma=1,count=3]'
expect_refused "count=? member" "has a count" calibrate --epsilon 1 --delta 1e-5 'poisson-sampled:q=0.1[gaussian:sigma=1,count=?]'
expect_refused "selection member" "not one mechanism" epsilon --delta 1e-5 'poisson-sampled:q=0.1[random-selection:weights=1[gaussian:sigma=1]]'
expect_refused "nested" "product of the rates" epsilon --delta 1e-5 'poisson-sampled:q=0.1[poisson-sampled:q=0.5[gaussian:sigma=1]]'
expect_refused "pld member" "saved PLD" epsilon --delta 1e-5 'poisson-sampled:q=0.1[pld:file=x.pld]'
expect_refused "add-only member" "no single PLD mechanism" epsilon --delta 1e-5 'poisson-sampled:q=0.1[balanced-iteration:T=10,k=1,sigma=1,c=1]'
expect_refused "closed-form member" "closed-form" epsilon --delta 1e-5 'poisson-sampled:q=0.1[random-participation:p=0.1,q=0.05,d=100,C=1,sigma=1,analysis=ols]'
expect_refused "unknown member" "unknown event 'nope'" epsilon --delta 1e-5 'poisson-sampled:q=0.1[nope:x=1]'
expect_refused "bad member value" "sigma='-1'" epsilon --delta 1e-5 'poisson-sampled:q=0.1[gaussian:sigma=-1]'
expect_refused "text after ]" "after the ']'" epsilon --delta 1e-5 'poisson-sampled:q=0.1[gaussian:sigma=1]x'
expect_refused "member list on gaussian" "only random-selection and poisson-sampled" epsilon --delta 1e-5 'gaussian:sigma=1[laplace:b=1]'

# calibrate solves for q and for a member's key
expect_ok "calibrate q" calibrate --epsilon 1 --delta 1e-5 --json 'poisson-sampled:q=?,count=100[gaussian:sigma=1]' &&
  a=$(jnum value) &&
  expect_ok "calibrate q, poisson-gaussian" calibrate --epsilon 1 --delta 1e-5 --json 'poisson-gaussian:q=?,sigma=1,count=100' &&
  if [ "$(jnum value)" = "$a" ]; then ok; else bad "calibrate q: $a vs poisson-gaussian $(jnum value)"; fi
expect_ok "calibrate member sigma" calibrate --epsilon 1 --delta 1e-5 --json 'poisson-sampled:q=0.01,count=100[gaussian:sigma=?]' &&
  a=$(jnum value) &&
  expect_ok "calibrate sigma, poisson-gaussian" calibrate --epsilon 1 --delta 1e-5 --json 'poisson-gaussian:q=0.01,sigma=?,count=100' &&
  if [ "$(jnum value)" = "$a" ]; then ok; else bad "calibrate sigma: $a vs poisson-gaussian $(jnum value)"; fi

expect_ok "help" help poisson-sampled && if grep -q "pld_mech_poisson" "$OUT"; then ok; else bad "help poisson-sampled"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
