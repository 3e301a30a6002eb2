#!/usr/bin/env bash
# The pldkit CLI contract: subcommands, output formats, and every class of bad
# input (exit 2, exactly one line on stderr, nothing on stdout).
#
# usage: tests/test_cli.sh PATH/TO/pldkit
# Set PLDKIT_TEST_VALGRIND=1 to also run a few commands under valgrind.
set -u

BIN=${1:?usage: test_cli.sh PATH/TO/pldkit}
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

# expect_fail STATUS NEEDLE ARGS...: exit STATUS, stdout empty, exactly one
# stderr line "pldkit: ..." that contains NEEDLE (a fixed string).
expect_fail() {
  local want=$1 needle=$2
  shift 2
  run "$@"
  local desc
  desc=$(printf '%q ' "$@")
  if [ "$rc" -ne "$want" ]; then
    bad "exit $rc (want $want): pldkit $desc"
    return
  fi
  if [ -s "$OUT" ]; then
    bad "stdout not empty: pldkit $desc"
    return
  fi
  if [ "$(err_lines)" -ne 1 ] || [ "$(wc -l <"$ERR")" -ne 1 ]; then
    bad "stderr has $(err_lines) lines (want exactly 1): pldkit $desc"
    return
  fi
  if [ "$(head -c 8 "$ERR")" != "pldkit: " ]; then
    bad "stderr does not start with 'pldkit: ': pldkit $desc"
    return
  fi
  if [ -n "$needle" ] && ! grep -qF -- "$needle" "$ERR"; then
    bad "stderr does not mention \"$needle\": pldkit $desc"
    return
  fi
  ok
}

usage() { expect_fail 2 "$@"; }

# jcheck DESCRIPTION PYTHON_EXPR: $OUT is valid JSON (json.tool) and the
# expression over the parsed object j is true.  num(x) maps "inf" to inf.
jcheck() {
  local what=$1 expr=$2
  if ! python3 -m json.tool <"$OUT" >/dev/null 2>&1; then
    bad "$what: stdout is not valid JSON"
    return
  fi
  if python3 - "$OUT" "$expr" <<'EOF'; then ok; else bad "$what: $expr"; fi
import json, math, sys
def num(x):
    if x == "inf":
        return math.inf
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise SystemExit("not a number: %r" % (x,))
    return float(x)
j = json.load(open(sys.argv[1]))
if not eval(sys.argv[2]):
    print("  json:", json.dumps(j)[:400])
    sys.exit(1)
EOF
}

# ---------------------------------------------------------------------------
# --version and help

expect_ok "--version" --version &&
  if grep -qE '^pldkit [0-9]+\.[0-9]+\.[0-9]+$' "$OUT" && [ "$(wc -l <"$OUT")" -eq 1 ]; then ok; else bad "--version prints '$(cat "$OUT")'"; fi

events="gaussian laplace discrete-laplace discrete-gaussian randomized-response poisson-gaussian poisson-laplace finite mixture-gaussian wor-gaussian random-participation random-selection"
keys="sigma sensitivity b scale epsilon k q p count p-means p-weights q-means q-weights batch n d C analysis weights wcs cs thm41 ols 2C"
for cmd in "" epsilon delta curve calibrate; do
  if [ -z "$cmd" ]; then args=(--help); else args=("$cmd" --help); fi
  expect_ok "help ${args[*]}" "${args[@]}" || continue
  missing=""
  for w in $events $keys --discretization --accuracy --json --tail-mass --max-grid default required; do
    grep -qw -- "$w" "$OUT" || missing="$missing $w"
  done
  case $cmd in
    epsilon) opts="--delta" ;;
    delta) opts="--epsilon" ;;
    curve) opts="--epsilon-range" ;;
    calibrate) opts="--epsilon --delta --param --range --tolerance" ;;
    *) opts="--delta --epsilon --epsilon-range --param --range --tolerance calibrate demo --version" ;;
  esac
  for w in $opts; do grep -qw -- "$w" "$OUT" || missing="$missing $w"; done
  # The member-list grammar is documented wherever EVENTs are.
  for w in "MEMBER LISTS" "weights=W1;...;Wn[,count=N][M1|M2|...|Mn]" "joined by '+'" "1e-12"; do
    grep -qF -- "$w" "$OUT" || missing="$missing '$w'"
  done
  if [ -z "$missing" ]; then ok; else bad "pldkit ${args[*]} does not mention:$missing"; fi
done
expect_ok "demo --help" demo --help
expect_ok "-h" -h
expect_ok "help wins over other arguments" epsilon --delta 7 --help

# ---------------------------------------------------------------------------
# epsilon, delta, curve: plain text

if expect_ok "epsilon text" epsilon --delta 1e-5 poisson-gaussian:q=0.01,sigma=1,count=100; then
  if [ "$(wc -l <"$OUT")" -eq 1 ] && grep -q '^epsilon in \[.*\] (upper is the certified bound' "$OUT" &&
     grep -q 'delta = 1e-05' "$OUT"; then ok; else bad "epsilon text: '$(cat "$OUT")'"; fi
fi
if expect_ok "delta text" delta --epsilon 1 laplace:b=2,count=3; then
  if grep -q '^delta in \[.*\] (upper is the certified bound) at epsilon = 1' "$OUT"; then ok
  else bad "delta text: '$(cat "$OUT")'"; fi
fi
if expect_ok "options after events" epsilon gaussian:sigma=2 --delta 1e-5 --accuracy 0.01; then ok; fi
if expect_ok "--option=value and --" epsilon --delta=1e-5 --accuracy=0.01 -- gaussian:sigma=2; then ok; fi

# ---------------------------------------------------------------------------
# JSON

common='j["query"] == "%s" and isinstance(j["closed_form"], bool) and isinstance(j["met_accuracy"], bool) and num(j["seconds"]) >= 0 and num(j["discretization"]) >= 0 and isinstance(j["grid_size"], int) and isinstance(j["fft_size"], int) and isinstance(j["refinements"], int)'

if expect_ok "epsilon json" epsilon --delta 1e-5 --json poisson-gaussian:q=0.01,sigma=1,count=1000 laplace:b=10; then
  jcheck "epsilon json" "$(printf "$common" epsilon) and num(j['delta']) == 1e-5 and 0 <= num(j['epsilon_lower']) <= num(j['epsilon_upper']) < math.inf and j['events'] == ['poisson-gaussian:q=0.01,sigma=1,count=1000', 'laplace:b=10']"
fi
if expect_ok "delta json" delta --epsilon 1.5 --json discrete-gaussian:sigma=3,sensitivity=2,count=5; then
  jcheck "delta json" "$(printf "$common" delta) and num(j['epsilon']) == 1.5 and 0 <= num(j['delta_lower']) <= num(j['delta_upper']) <= 1 and j['events'] == ['discrete-gaussian:sigma=3,sensitivity=2,count=5']"
fi
if expect_ok "--discretization json" epsilon --delta 1e-5 --discretization 0.001 --json laplace:b=1,count=10; then
  jcheck "--discretization is reported back" "num(j['discretization']) == 0.001 and j['closed_form'] is False and j['grid_size'] > 0 and 0 <= num(j['epsilon_lower']) <= num(j['epsilon_upper'])"
fi
if expect_ok "--accuracy json" epsilon --delta 1e-5 --accuracy 0.01 --json laplace:b=1,count=10; then
  jcheck "--accuracy is reported back" "num(j['accuracy']) == 0.01 and num(j['epsilon_lower']) <= num(j['epsilon_upper'])"
fi

# Infinite epsilon: half of P's mass is where Q has none, far above delta.
# (A fixed grid: no refinement can narrow [inf, inf].)
if expect_ok "infinite epsilon json" epsilon --delta 1e-5 --discretization 0.01 --json 'finite:p=0.5;0.5,q=1;0'; then
  jcheck "infinite epsilon is the string inf" "j['epsilon_upper'] == 'inf'"
fi
if expect_ok "infinite epsilon text" epsilon --delta 1e-5 --discretization 0.01 'finite:p=0.5;0.5,q=1;0'; then
  if grep -q ', inf\]' "$OUT"; then ok; else bad "infinite epsilon text: '$(cat "$OUT")'"; fi
fi

# Every event, with every optional key given.
for ev in gaussian:sigma=2,sensitivity=1.5 laplace:b=2,sensitivity=0.5 \
  discrete-laplace:scale=3,sensitivity=2 discrete-gaussian:sigma=4,sensitivity=1 \
  randomized-response:epsilon=1,k=4 poisson-gaussian:q=0.05,sigma=1.2,sensitivity=1 \
  poisson-laplace:q=0.1,b=2,sensitivity=1 'finite:p=0.5;0.3;0.2,q=0.2;0.3;0.5' \
  gaussian:sigma=3,count=20 'randomized-response:epsilon=0,k=2'; do
  if expect_ok "event $ev" delta --epsilon 0.5 --json "$ev"; then
    jcheck "event $ev" "0 <= num(j['delta_lower']) <= num(j['delta_upper']) <= 1"
  fi
done

# ---------------------------------------------------------------------------
# Gaussian against its closed form, computed here independently of pldkit:
# T-fold Gaussian = Gaussian with mu = sqrt(T) * sensitivity / sigma, and
# delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2).

exact_gaussian_eps() { # T SIGMA DELTA
  python3 - "$@" <<'EOF'
import math, sys
T, sigma, delta = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
mu = math.sqrt(T) / sigma
def log_phi(x):  # log of the standard normal cdf, also far in the left tail
    if x > -30:
        return math.log(0.5 * math.erfc(-x / math.sqrt(2)))
    t = -x
    s = 1 - 1/t**2 + 3/t**4 - 15/t**6 + 105/t**8 - 945/t**10
    return -t * t / 2 - math.log(t * math.sqrt(2 * math.pi)) + math.log(s)
def d(e):
    return math.exp(log_phi(-e / mu + mu / 2)) - math.exp(e + log_phi(-e / mu - mu / 2))
lo, hi = 0.0, 1.0
while d(hi) > delta:
    hi *= 2
for _ in range(200):
    m = (lo + hi) / 2
    if d(m) > delta:
        lo = m
    else:
        hi = m
print(repr((lo + hi) / 2))
EOF
}

check_gaussian() { # T SIGMA
  local T=$1 sigma=$2 exact
  exact=$(exact_gaussian_eps "$T" "$sigma" 1e-5)
  if expect_ok "gaussian sigma=$sigma count=$T" epsilon --delta 1e-5 --json "gaussian:sigma=$sigma,count=$T"; then
    # The slack only absorbs the last bits of two independent evaluations.
    jcheck "gaussian sigma=$sigma count=$T brackets the exact epsilon $exact" \
      "num(j['epsilon_lower']) <= $exact * (1 + 1e-9) and num(j['epsilon_upper']) >= $exact * (1 - 1e-9) and num(j['epsilon_lower']) <= num(j['epsilon_upper'])"
  fi
}
check_gaussian 1000 30
check_gaussian 1 1
check_gaussian 1000 0.5 # epsilon ~ 2268.77: exp(-loss) underflows if done naively

# Laplace against its closed form at fixed grids, fine to very coarse: the
# upper end must stay a guarantee whatever --discretization is.  For scale b
# and sensitivity 1, delta(eps) = 1 - exp((eps - 1/b) / 2) for eps < 1/b.
for d in 0.01 2 100; do
  if expect_ok "laplace --discretization $d" epsilon --delta 1e-5 --discretization "$d" --json laplace:b=1; then
    jcheck "laplace epsilon at --discretization $d brackets 1 + 2 log(1 - 1e-5)" \
      "num(j['epsilon_lower']) <= 1 + 2 * math.log1p(-1e-5) + 1e-9 <= num(j['epsilon_upper']) + 2e-9"
  fi
  if expect_ok "laplace delta --discretization $d" delta --epsilon 0.5 --discretization "$d" --json laplace:b=1; then
    jcheck "laplace delta(0.5) at --discretization $d brackets 1 - exp(-1/4)" \
      "num(j['delta_lower']) <= -math.expm1(-0.25) + 1e-12 <= num(j['delta_upper']) + 2e-12"
  fi
done

# Composition: two events compose like one event with count=2.
run epsilon --delta 1e-5 --json gaussian:sigma=1 gaussian:sigma=1
cp "$OUT" "$tmp/two"
if expect_ok "count=2" epsilon --delta 1e-5 --json gaussian:sigma=1,count=2; then
  if python3 - "$tmp/two" "$OUT" <<'EOF'; then ok; else bad "two events differ from count=2"; fi
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
ok = a["epsilon_lower"] <= b["epsilon_upper"] and b["epsilon_lower"] <= a["epsilon_upper"]
sys.exit(0 if ok else 1)
EOF
fi

# ---------------------------------------------------------------------------
# curve

check_curve() { # DESCRIPTION N LO HI ARGS...
  local what=$1 n=$2 lo=$3 hi=$4
  shift 4
  expect_ok "$what" "$@" || return
  if python3 - "$OUT" "$n" "$lo" "$hi" <<'EOF'; then ok; else bad "$what: bad CSV"; fi
import sys
lines = open(sys.argv[1]).read().splitlines()
n, lo, hi = int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
def fail(msg):
    print("  " + msg)
    sys.exit(1)
if lines[0] != "epsilon,delta_lower,delta_upper":
    fail("header %r" % lines[0])
rows = [[float(x) for x in l.split(",")] for l in lines[1:]]
if len(rows) != n or any(len(r) != 3 for r in rows):
    fail("%d rows, want %d of 3 fields" % (len(rows), n))
if rows[0][0] != lo or rows[-1][0] != hi:
    fail("epsilon runs from %r to %r" % (rows[0][0], rows[-1][0]))
for a, b in zip(rows, rows[1:]):
    if not b[0] > a[0]:
        fail("epsilon not increasing at %r" % b[0])
    if b[1] > a[1] or b[2] > a[2]:
        fail("delta increases between epsilon %r and %r" % (a[0], b[0]))
for r in rows:
    if not 0 <= r[1] <= r[2] <= 1:
        fail("lower <= upper fails at epsilon %r: %r" % (r[0], r))
EOF
}
check_curve "curve default range" 101 0 10 curve laplace:b=2,count=5
check_curve "curve of DP-SGD" 31 0 3 curve --epsilon-range 0:3:31 poisson-gaussian:q=0.02,sigma=0.9,count=300
check_curve "curve --epsilon-range" 11 0.5 3 curve --epsilon-range 0.5:3:11 laplace:b=1,count=4 gaussian:sigma=5
check_curve "curve of a finite pair" 5 0 4 curve --epsilon-range 0:4:5 'finite:p=0.6;0.4,q=0.4;0.6,count=3'
if expect_ok "curve json" curve --epsilon-range 0:2:5 --json laplace:b=1,count=4; then
  jcheck "curve json" "$(printf "$common" curve) and len(j['epsilon']) == len(j['delta_lower']) == len(j['delta_upper']) == 5 and all(0 <= num(l) <= num(u) <= 1 for l, u in zip(j['delta_lower'], j['delta_upper'])) and all(num(b) <= num(a) for a, b in zip(j['delta_upper'], j['delta_upper'][1:]))"
fi

# ---------------------------------------------------------------------------
# demo

if expect_ok "demo" demo; then
  missing=""
  for w in epsilon certified 1e-05 14063 0.00426667 1.1 " s"; do
    grep -qF -- "$w" "$OUT" || missing="$missing '$w'"
  done
  if [ -z "$missing" ]; then ok; else bad "demo does not mention:$missing"; fi
fi
if expect_ok "demo --json" demo --json; then
  jcheck "demo json" "j['query'] == 'epsilon' and num(j['delta']) == 1e-5 and 0 < num(j['epsilon_lower']) <= num(j['epsilon_upper']) < 10"
fi

# ---------------------------------------------------------------------------
# Bad input: exit 2, one line on stderr naming the problem, nothing on stdout.

G=gaussian:sigma=1
usage "command"
usage "'frobnicate'" frobnicate $G
usage "'--version'" --version extra
usage "'extra'" --help extra
usage "'--foo'" epsilon --delta 1e-5 --foo $G
usage "'--foo'" delta --epsilon 1 $G --foo=3
usage "'--foo'" curve --foo $G
usage "'--foo'" demo --foo
usage "'-'" epsilon --delta 1e-5 - $G
usage "'--delta'" delta --epsilon 1 --delta 0.1 $G
usage "'--epsilon'" epsilon --delta 1e-5 --epsilon 1 $G
usage "'--epsilon-range'" epsilon --delta 1e-5 --epsilon-range 0:1:5 $G
usage "'--delta'" curve --delta 1e-5 $G
usage "'--delta'" demo --delta 1e-5
usage "'--delta'" epsilon $G --delta
usage "'--accuracy'" epsilon --delta 1e-5 $G --accuracy
usage "twice" epsilon --delta 1e-5 --delta 1e-6 $G
usage "twice" epsilon --delta 1e-5 --accuracy 0.1 --accuracy 0.1 $G
usage "'--json'" epsilon --delta 1e-5 --json=yes $G
usage "no EVENT" demo $G

# missing options and events
usage "--delta" epsilon $G
usage "--epsilon" delta $G
usage "EVENT" epsilon --delta 1e-5
usage "EVENT" delta --epsilon 1
usage "EVENT" curve
usage "EVENT" curve --json -- 

# --delta and --epsilon
for v in 0 1 -1 1.5 nan NaN inf -inf abc 1e 1e-5x "" " 1e-5" 0x; do
  usage "--delta" epsilon --delta "$v" $G
done
for v in -1 -1e-300 nan inf abc 1e "" ; do
  usage "--epsilon" delta --epsilon "$v" $G
done

# --epsilon-range
for v in 1:0:10 0:10:1 0:10:1000001 0:10 0:10:5:1 a:1:5 -1:1:10 0:10:2.5 0:10:0 \
  1:1:5 "" 0:inf:5 0:nan:5 0:10:-3 ::: 0:10:; do
  usage "--epsilon-range" curve --epsilon-range "$v" $G
done

# numeric options
for v in 0 1 2 -0.1 abc nan ""; do usage "--accuracy" epsilon --delta 1e-5 --accuracy "$v" $G; done
for v in 0 -1 abc inf 1e ""; do usage "--discretization" epsilon --delta 1e-5 --discretization "$v" $G; done
for v in 0 -1 1 abc nan; do usage "--tail-mass" epsilon --delta 1e-5 --tail-mass "$v" $G; done
for v in 0 -5 abc 1.5 1e6 ""; do usage "--max-grid" epsilon --delta 1e-5 --max-grid "$v" $G; done

# event names and structure
usage "'gauss'" epsilon --delta 1e-5 gauss:sigma=1
usage "'Gaussian'" epsilon --delta 1e-5 Gaussian:sigma=1
usage "no name" epsilon --delta 1e-5 :sigma=1
usage "nothing after" epsilon --delta 1e-5 gaussian:
usage "stray" epsilon --delta 1e-5 gaussian:sigma=1,
usage "stray" epsilon --delta 1e-5 gaussian:,sigma=1
usage "key=value" epsilon --delta 1e-5 gaussian:sigma
usage "key=value" epsilon --delta 1e-5 gaussian:=1
usage "key=value" epsilon --delta 1e-5 gaussian:sigma=1,5
usage "'sd'" epsilon --delta 1e-5 gaussian:sd=1
usage "'b'" epsilon --delta 1e-5 gaussian:sigma=1,b=1
usage "'sigma'" epsilon --delta 1e-5 laplace:sigma=1

# missing required keys
usage "'sigma'" epsilon --delta 1e-5 gaussian
usage "'sigma'" epsilon --delta 1e-5 gaussian:sensitivity=2
usage "'b'" epsilon --delta 1e-5 laplace:sensitivity=1
usage "'scale'" epsilon --delta 1e-5 discrete-laplace:sensitivity=1
usage "'sigma'" epsilon --delta 1e-5 discrete-gaussian:count=2
usage "'epsilon'" epsilon --delta 1e-5 randomized-response:k=3
usage "'k'" epsilon --delta 1e-5 randomized-response:epsilon=1
usage "'q'" epsilon --delta 1e-5 poisson-gaussian:sigma=1
usage "'sigma'" epsilon --delta 1e-5 poisson-gaussian:q=0.1
usage "'b'" epsilon --delta 1e-5 poisson-laplace:q=0.1
usage "'q'" epsilon --delta 1e-5 poisson-laplace:b=1
usage "'q'" epsilon --delta 1e-5 finite:p=1
usage "'p'" epsilon --delta 1e-5 finite:q=1

# duplicated keys
usage "'sigma' given twice" epsilon --delta 1e-5 gaussian:sigma=1,sigma=2
usage "'count' given twice" epsilon --delta 1e-5 gaussian:sigma=1,count=2,count=3
usage "'p' given twice" epsilon --delta 1e-5 'finite:p=1,q=1,p=1'

# malformed numbers
for v in 1e abc nan NaN inf -inf infinity "" " 1" "1 " 1..2 0x 1e+ - + . 1-; do
  usage "sigma" epsilon --delta 1e-5 "gaussian:sigma=$v"
done
usage "'abc'" epsilon --delta 1e-5 laplace:b=abc
usage "'1e'" epsilon --delta 1e-5 poisson-gaussian:q=1e,sigma=1

# values out of their domain
usage "sigma" epsilon --delta 1e-5 gaussian:sigma=0
usage "sigma" epsilon --delta 1e-5 gaussian:sigma=-1
usage "sigma" epsilon --delta 1e-5 gaussian:sigma=1e-400
usage "sensitivity" epsilon --delta 1e-5 gaussian:sigma=1,sensitivity=0
usage "sensitivity" epsilon --delta 1e-5 gaussian:sigma=1,sensitivity=-2
usage "b='" epsilon --delta 1e-5 laplace:b=0
usage "b='" epsilon --delta 1e-5 laplace:b=-3
usage "scale" epsilon --delta 1e-5 discrete-laplace:scale=0
usage "sensitivity" epsilon --delta 1e-5 discrete-laplace:scale=1,sensitivity=0
usage "sensitivity" epsilon --delta 1e-5 discrete-laplace:scale=1,sensitivity=1.5
usage "sensitivity" epsilon --delta 1e-5 discrete-laplace:scale=1,sensitivity=-1
usage "sigma" epsilon --delta 1e-5 discrete-gaussian:sigma=-1
usage "sensitivity" epsilon --delta 1e-5 discrete-gaussian:sigma=1,sensitivity=2.5
usage "epsilon" epsilon --delta 1e-5 randomized-response:epsilon=-1,k=2
usage "k='" epsilon --delta 1e-5 randomized-response:epsilon=1,k=1
usage "k='" epsilon --delta 1e-5 randomized-response:epsilon=1,k=0
usage "k='" epsilon --delta 1e-5 randomized-response:epsilon=1,k=2.5
usage "k='" epsilon --delta 1e-5 randomized-response:epsilon=1,k=99999999999999999999999
for q in 0 -0.1 1.5 1.0000001; do
  usage "q='" epsilon --delta 1e-5 "poisson-gaussian:q=$q,sigma=1"
  usage "q='" epsilon --delta 1e-5 "poisson-laplace:q=$q,b=1"
done
usage "sigma" epsilon --delta 1e-5 poisson-gaussian:q=0.1,sigma=0
usage "b='" epsilon --delta 1e-5 poisson-laplace:q=0.1,b=0
usage "sensitivity" epsilon --delta 1e-5 poisson-laplace:q=0.1,b=1,sensitivity=0
usage "sums to" epsilon --delta 1e-5 'finite:p=0.5;0.6,q=0.5;0.5'
usage "sums to" epsilon --delta 1e-5 'finite:p=0.5;0.5,q=0.5;0.4'
usage "'-0.5'" epsilon --delta 1e-5 'finite:p=-0.5;1.5,q=0.5;0.5'
usage "same number" epsilon --delta 1e-5 'finite:p=0.5;0.5,q=1'
usage "empty entry" epsilon --delta 1e-5 'finite:p=0.5;;0.5,q=0.5;0.25;0.25'
usage "empty entry" epsilon --delta 1e-5 'finite:p=0.5;0.5;,q=0.5;0.5'
usage "'abc'" epsilon --delta 1e-5 'finite:p=abc;1,q=0.5;0.5'

# count
for v in 0 -1 1.5 1e3 abc "" 9007199254740993 99999999999999999999999 " 3" +-3; do
  usage "count" epsilon --delta 1e-5 "gaussian:sigma=1,count=$v"
done

# A bad token anywhere means no output at all, even after valid events.
usage "sigma" epsilon --delta 1e-5 $G gaussian:sigma=0
usage "--accuracy" epsilon $G --delta 1e-5 --accuracy 5
# Control characters in a token must not break the one-line rule.
usage "gaussian" epsilon --delta 1e-5 $'gaussian:sigma=1\nsigma=2'
usage "--delta" epsilon --delta $'1\n2' $G
# A very long token is cut in the message, still one line.
usage "unknown event" epsilon --delta 1e-5 "$(printf 'x%.0s' {1..5000}):a=1"

# Library failure on valid input (grid over --max-grid): exit 1, one line.
expect_fail 1 "" epsilon --delta 1e-5 --discretization 1e-7 --max-grid 16 laplace:b=1,count=10

# ---------------------------------------------------------------------------
# Mixtures, sampling without replacement, random selection, random
# participation, calibrate.

# jsave NAME: keep the last JSON answer as $tmp/NAME.
jsave() { cp "$OUT" "$tmp/$1"; }

# jcmp DESCRIPTION A B PYTHON_EXPR: the saved answers a and b (parsed) satisfy
# the expression; lo(x)/hi(x) read a bracket of either query.
jcmp() {
  local what=$1 fa=$tmp/$2 fb=$tmp/$3 expr=$4
  if python3 - "$fa" "$fb" "$expr" <<'EOF'; then ok; else bad "$what: $expr"; fi
import json, math, sys
def num(x):
    return math.inf if x == "inf" else float(x)
a, b = (json.load(open(f)) for f in sys.argv[1:3])
def lo(j):
    return num(j["epsilon_lower"] if "epsilon_lower" in j else j["delta_lower"])
def hi(j):
    return num(j["epsilon_upper"] if "epsilon_upper" in j else j["delta_upper"])
def overlap(a, b):  # equal within the brackets' widths
    return lo(a) <= hi(b) and lo(b) <= hi(a)
if not eval(sys.argv[3]):
    print("  a: [%r, %r]  b: [%r, %r]" % (lo(a), hi(a), lo(b), hi(b)))
    sys.exit(1)
EOF
}

# same_bracket DESCRIPTION ARGS_A -- ARGS_B: both succeed with JSON, their
# brackets overlap (equal within the widths) and each is ordered.
same_bracket() {
  local what=$1 a=() b=()
  shift
  while [ "$1" != -- ]; do a+=("$1"); shift; done
  shift
  b=("$@")
  expect_ok "$what (a)" "${a[@]}" --json || return
  jsave sa
  expect_ok "$what (b)" "${b[@]}" --json || return
  jsave sb
  jcmp "$what" sa sb "lo(a) <= hi(a) and lo(b) <= hi(b) and overlap(a, b)"
}

# mixture-gaussian
same_bracket "mixture with one component per side = gaussian" \
  epsilon --delta 1e-5 'mixture-gaussian:sigma=1,p-means=2,p-weights=1,q-means=0,q-weights=1,count=5' -- \
  epsilon --delta 1e-5 gaussian:sigma=1,sensitivity=2,count=5
same_bracket "mixture with one component per side = gaussian (delta)" \
  delta --epsilon 1 'mixture-gaussian:sigma=2,p-means=0,p-weights=1,q-means=1,q-weights=1' -- \
  delta --epsilon 1 gaussian:sigma=2
# Both directions are kept, so swapping P and Q changes nothing.
same_bracket "mixture with P and Q swapped" \
  epsilon --delta 1e-5 'mixture-gaussian:sigma=1,p-means=0;3,p-weights=0.7;0.3,q-means=0;1,q-weights=0.5;0.5,count=3' -- \
  epsilon --delta 1e-5 'mixture-gaussian:sigma=1,p-means=0;1,p-weights=0.5;0.5,q-means=0;3,q-weights=0.7;0.3,count=3'
if expect_ok "mixture text" epsilon --delta 1e-5 'mixture-gaussian:sigma=1,p-means=-1;2,p-weights=0.5;0.5,q-means=0,q-weights=1'; then
  if [ "$(wc -l <"$OUT")" -eq 1 ] && grep -q '^epsilon in \[' "$OUT"; then ok; else bad "mixture text: '$(cat "$OUT")'"; fi
fi

# wor-gaussian: a batch of all n records is the plain Gaussian mechanism.
same_bracket "wor-gaussian with batch = n = gaussian" \
  epsilon --delta 1e-5 wor-gaussian:batch=7,n=7,sigma=2,sensitivity=2,count=10 -- \
  epsilon --delta 1e-5 gaussian:sigma=2,sensitivity=2,count=10
if expect_ok "wor-gaussian json" epsilon --delta 1e-5 --json wor-gaussian:batch=256,n=60000,sigma=1.1,sensitivity=2,count=500; then
  jcheck "wor-gaussian json" "$(printf "$common" epsilon) and 0 < num(j['epsilon_lower']) <= num(j['epsilon_upper']) < math.inf"
fi

# random-selection
RS='random-selection:weights=0.3;0.7[gaussian:sigma=2,count=10|gaussian:sigma=8,count=10]'
if expect_ok "random-selection json" epsilon --delta 1e-5 --json "$RS"; then
  jcheck "random-selection json" "$(printf "$common" epsilon) and 0 < num(j['epsilon_lower']) <= num(j['epsilon_upper']) < math.inf and j['events'] == ['$RS']"
fi
same_bracket "random-selection with weights 1;0 = its first member" \
  epsilon --delta 1e-5 'random-selection:weights=1;0[poisson-gaussian:q=0.01,sigma=1,count=100|laplace:b=1]' -- \
  epsilon --delta 1e-5 poisson-gaussian:q=0.01,sigma=1,count=100
# On a fixed grid the two PLDs are the same numbers, up to rounding.
expect_ok "random-selection 1;0 fixed grid" epsilon --delta 1e-5 --discretization 1e-3 --json 'random-selection:weights=1;0[poisson-gaussian:q=0.01,sigma=1,count=100|laplace:b=1]' && jsave fa
expect_ok "its member, fixed grid" epsilon --delta 1e-5 --discretization 1e-3 --json poisson-gaussian:q=0.01,sigma=1,count=100 && jsave fb
jcmp "random-selection 1;0 = member on a fixed grid" fa fb "abs(lo(a) - lo(b)) <= 1e-9 * lo(b) and abs(hi(a) - hi(b)) <= 1e-9 * hi(b)"
same_bracket "random-selection of two identical members = the member" \
  epsilon --delta 1e-5 'random-selection:weights=0.4;0.6[laplace:b=2,count=5|laplace:b=2,count=5]' -- \
  epsilon --delta 1e-5 laplace:b=2,count=5
same_bracket "random-selection, count=2 = the selection twice" \
  epsilon --delta 1e-5 'random-selection:weights=0.5;0.5,count=2[laplace:b=2|gaussian:sigma=3]' -- \
  epsilon --delta 1e-5 'random-selection:weights=0.5;0.5[laplace:b=2|gaussian:sigma=3]' 'random-selection:weights=0.5;0.5[laplace:b=2|gaussian:sigma=3]'
same_bracket "'+' in one argument = two arguments" \
  epsilon --delta 1e-5 'gaussian:sigma=3,count=4+laplace:b=2' -- \
  epsilon --delta 1e-5 gaussian:sigma=3,count=4 laplace:b=2
# The selection's delta lies between its members' (it is their average).
expect_ok "member 1" delta --epsilon 1 --json laplace:b=1,count=2 && jsave m1
expect_ok "member 2" delta --epsilon 1 --json gaussian:sigma=4 && jsave m2
expect_ok "selection of both" delta --epsilon 1 --json 'random-selection:weights=0.5;0.5[laplace:b=1,count=2|gaussian:sigma=4]' && jsave m12
jcmp "selection delta between its members'" m12 m1 "lo(a) <= hi(b)"
jcmp "selection delta between its members' (2)" m12 m2 "hi(a) >= lo(b)"
if expect_ok "nested selection, '+' in members, 1e+1 stays a number" epsilon --delta 1e-5 --json \
  'random-selection:weights=0.25;0.75[gaussian:sigma=2,count=10+laplace:b=3|random-selection:weights=0.5;0.5[gaussian:sigma=1e+1|poisson-gaussian:q=0.1,sigma=1,count=5]]'; then
  jcheck "nested selection" "0 < num(j['epsilon_lower']) <= num(j['epsilon_upper']) < math.inf"
fi
if expect_ok "random-selection text" epsilon --delta 1e-5 "$RS"; then
  if [ "$(wc -l <"$OUT")" -eq 1 ] && grep -q '^epsilon in \[' "$OUT"; then ok; else bad "random-selection text: '$(cat "$OUT")'"; fi
fi

# random-participation
same_bracket "random-participation analysis=cs = poisson-gaussian at q = p q" \
  epsilon --delta 1e-5 random-participation:p=0.1,q=0.02,d=10,C=1.5,sigma=1.2,analysis=cs,count=50 -- \
  epsilon --delta 1e-5 "poisson-gaussian:q=$(python3 -c 'print(repr(0.1 * 0.02))'),sigma=1.2,sensitivity=1.5,count=50"
same_bracket "random-participation wcs with p = 1 = poisson-gaussian" \
  delta --epsilon 0.5 random-participation:p=1,q=0.05,d=10,C=1,sigma=0.8,count=20 -- \
  delta --epsilon 0.5 poisson-gaussian:q=0.05,sigma=0.8,count=20
# One WCS round: delta = p * delta of the q-subsampled Gaussian (eps >= 0).
expect_ok "wcs round" delta --epsilon 0.3 --json random-participation:p=0.2,q=0.1,d=5,C=1,sigma=1 && jsave wcs
expect_ok "its subsampled Gaussian" delta --epsilon 0.3 --json poisson-gaussian:q=0.1,sigma=1 && jsave pg
jcmp "wcs round = p * subsampled Gaussian" wcs pg "lo(a) <= 0.2 * hi(b) * (1 + 1e-9) and 0.2 * lo(b) <= hi(a) * (1 + 1e-9)"
expect_ok "wcs composed" delta --epsilon 1 --json random-participation:p=0.1,q=0.1,d=5,C=1,sigma=1,count=100 && jsave wcs100
expect_ok "cs composed" delta --epsilon 1 --json random-participation:p=0.1,q=0.1,d=5,C=1,sigma=1,count=100,analysis=cs && jsave cs100
jcmp "cs <= wcs" cs100 wcs100 "lo(a) <= hi(b) and lo(a) <= hi(a) and lo(b) <= hi(b)"
if expect_ok "cs carries a warning" delta --epsilon 1 --json random-participation:p=0.1,q=0.1,d=5,C=1,sigma=1,analysis=cs; then
  jcheck "cs warning" "'lower limit' in j['warning'] and 'warning' in j"
fi

# thm41 and ols: closed-form single rounds (when compiled in).
TH='random-participation:p=0.1,q=0.001,d=1000,C=1,sigma=0.646,analysis=thm41'
run delta --epsilon 0.015 --json "$TH"
if [ "$rc" -eq 2 ] && grep -qF "not available in this build" "$ERR"; then
  ok
  usage "not available in this build" epsilon --delta 1e-6 random-participation:p=0.1,q=0.1,d=3,C=1,sigma=1,analysis=ols
else
  if expect_ok "thm41 delta json" delta --epsilon 0.015 --json "$TH"; then
    # The paper's scenario 6.2: Theorem 4.1 falls below cs, so not certified.
    jcheck "thm41 below cs is not certified" "j['certified'] is False and j['below_cs'] is True and j['analysis'] == 'thm41' and 0 <= num(j['delta_lower']) <= num(j['delta_upper']) < num(j['cs_delta'])"
  fi
  if expect_ok "thm41 text" delta --epsilon 0.015 "$TH"; then
    if grep -q 'certified: no' "$OUT"; then ok; else bad "thm41 text: '$(cat "$OUT")'"; fi
  fi
  # Paper scenario 6.1, OLS at sigma = 22.4 gives epsilon ~ 0.015 at 1e-6.
  if expect_ok "ols epsilon json" epsilon --delta 1e-6 --json random-participation:p=0.001,q=0.1,d=30,C=1,sigma=22.4,analysis=ols; then
    jcheck "ols is certified" "j['certified'] is True and abs(num(j['epsilon_upper']) / 0.015 - 1) < 0.01 and num(j['epsilon_lower']) <= num(j['epsilon_upper'])"
  fi
  usage "do not compose" delta --epsilon 1 "${TH},count=2"
  usage "only EVENT" delta --epsilon 1 "$TH" gaussian:sigma=1
  usage "only EVENT" delta --epsilon 1 gaussian:sigma=1 "$TH"
  usage "cannot be a member" delta --epsilon 1 "random-selection:weights=1[$TH]"
  usage "'pldkit epsilon' and 'pldkit delta'" curve "$TH"
  usage "'pldkit epsilon' and 'pldkit delta'" calibrate --epsilon 1 --delta 1e-6 random-participation:p=0.1,q=0.1,d=3,C=1,sigma=?,analysis=ols
fi

# calibrate
CAL=poisson-gaussian:q=0.01,sigma=?,count=200
if expect_ok "calibrate json" calibrate --epsilon 1 --delta 1e-5 --tolerance 0.002 --json "$CAL"; then
  jcheck "calibrate json" "j['query'] == 'calibrate' and j['param'] == 'sigma' and num(j['epsilon_upper']) <= 1 and num(j['epsilon_lower']) <= num(j['epsilon_upper']) and num(j['target_epsilon']) == 1 and num(j['delta']) == 1e-5 and 0 < num(j['value_fail']) < num(j['value']) and (num(j['value']) - num(j['value_fail'])) <= 0.002 * num(j['value']) and j['evaluations'] >= 2 and num(j['seconds']) >= 0 and isinstance(j['closed_form'], bool) and num(j['discretization']) > 0 and j['events'] == ['$CAL']"
  jsave cal
  read -r v vless <<<"$(python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["value"]; print(repr(v), repr(v * (1 - 0.002)))' "$tmp/cal")"
  # The value itself meets the target, and the value less the tolerance does
  # not.
  if expect_ok "epsilon at the calibrated value" epsilon --delta 1e-5 --json "poisson-gaussian:q=0.01,sigma=$v,count=200"; then
    jcheck "the calibrated value meets the target" "num(j['epsilon_upper']) <= 1"
  fi
  if expect_ok "epsilon below the calibrated value" epsilon --delta 1e-5 --json "poisson-gaussian:q=0.01,sigma=$vless,count=200"; then
    jcheck "the calibrated value less the tolerance misses the target" "num(j['epsilon_upper']) > 1"
  fi
fi
if expect_ok "calibrate text, --param" calibrate --epsilon 2 --delta 1e-6 --param b 'laplace:b=?,count=3' gaussian:sigma=5; then
  if [ "$(wc -l <"$OUT")" -eq 1 ] && grep -q '^b = .* meets epsilon <= 2 at delta = 1e-06' "$OUT"; then ok; else bad "calibrate text: '$(cat "$OUT")'"; fi
fi
if expect_ok "calibrate inside a selection" calibrate --epsilon 1 --delta 1e-5 --json 'random-selection:weights=0.5;0.5[gaussian:sigma=?|laplace:b=1]'; then
  jcheck "calibrate inside a selection" "num(j['epsilon_upper']) <= 1 and num(j['value_fail']) < num(j['value'])"
fi
if expect_ok "calibrate --range, bottom already meets" calibrate --epsilon 1 --delta 1e-5 --range 30:40 --json gaussian:sigma=?,count=10; then
  jcheck "calibrate --range bottom" "num(j['value']) == 30 and j['value_fail'] is None and num(j['epsilon_upper']) <= 1"
fi
if expect_ok "calibrate --range" calibrate --epsilon 1 --delta 1e-5 --range 2:20 --json gaussian:sigma=?,count=10; then
  jcheck "calibrate --range" "2 <= num(j['value_fail']) < num(j['value']) <= 20 and num(j['epsilon_upper']) <= 1 and num(j['range_lo']) == 2"
fi
expect_fail 1 "--range" calibrate --epsilon 1 --delta 1e-5 --range 1:2 gaussian:sigma=?,count=10

# Bad input, new events.
for v in '0.3;0.6' '0.5;0.5000001' '1;1'; do
  usage "sum to 1" epsilon --delta 1e-5 "random-selection:weights=$v[gaussian:sigma=1|laplace:b=1]"
done
usage "negative" epsilon --delta 1e-5 'random-selection:weights=-0.5;1.5[gaussian:sigma=1|laplace:b=1]'
usage "above 1" epsilon --delta 1e-5 'random-selection:weights=1.5;-0.5[gaussian:sigma=1|laplace:b=1]'
usage "'x'" epsilon --delta 1e-5 'random-selection:weights=x;1[gaussian:sigma=1|laplace:b=1]'
usage "empty entry" epsilon --delta 1e-5 'random-selection:weights=0.5;;0.5[gaussian:sigma=1|laplace:b=1]'
usage "2 weights but 3 members" epsilon --delta 1e-5 'random-selection:weights=0.5;0.5[gaussian:sigma=1|laplace:b=1|laplace:b=2]'
usage "3 weights but 2 members" epsilon --delta 1e-5 'random-selection:weights=0.2;0.3;0.5[gaussian:sigma=1|laplace:b=1]'
usage "empty member list '[]'" epsilon --delta 1e-5 'random-selection:weights=1[]'
usage "member 2 of 3" epsilon --delta 1e-5 'random-selection:weights=0.2;0.3;0.5[gaussian:sigma=1||laplace:b=1]'
usage "member 2 of 2" epsilon --delta 1e-5 'random-selection:weights=0.5;0.5[gaussian:sigma=1|]'
usage "member 1 of 2" epsilon --delta 1e-5 'random-selection:weights=0.5;0.5[|gaussian:sigma=1]'
usage "never closed" epsilon --delta 1e-5 'random-selection:weights=0.5;0.5[gaussian:sigma=1|laplace:b=1'
usage "never closed" epsilon --delta 1e-5 'random-selection:weights=1[random-selection:weights=1[gaussian:sigma=1]'
usage "no '[' before it" epsilon --delta 1e-5 'random-selection:weights=0.5;0.5[gaussian:sigma=1|laplace:b=1]]'
usage "no '[' before it" epsilon --delta 1e-5 'gaussian:sigma=1]'
usage "after the ']'" epsilon --delta 1e-5 'random-selection:weights=0.5;0.5[gaussian:sigma=1|laplace:b=1],count=2'
usage "no member list" epsilon --delta 1e-5 'random-selection:weights=1'
usage "takes no member list" epsilon --delta 1e-5 'gaussian:sigma=1[laplace:b=1]'
usage "outside brackets" epsilon --delta 1e-5 'gaussian:sigma=1|laplace:b=1'
usage "'weights'" epsilon --delta 1e-5 'random-selection[gaussian:sigma=1]'
usage "empty EVENT" epsilon --delta 1e-5 'random-selection:weights=0.5;0.5[+gaussian:sigma=1|laplace:b=1]'
usage "empty EVENT" epsilon --delta 1e-5 '+gaussian:sigma=1'
usage "sigma='1+'" epsilon --delta 1e-5 'gaussian:sigma=1++laplace:b=1'
usage "sigma='0'" epsilon --delta 1e-5 'random-selection:weights=0.5;0.5[gaussian:sigma=0|laplace:b=1]'
usage "unknown event 'gauss'" epsilon --delta 1e-5 'random-selection:weights=0.5;0.5[gauss:sigma=1|laplace:b=1]'
deep='gaussian:sigma=1'
for _ in $(seq 33); do deep="random-selection:weights=1[$deep]"; done
usage "deeper than 32" epsilon --delta 1e-5 "$deep"

usage "2 entries but p-weights has 1" epsilon --delta 1e-5 'mixture-gaussian:sigma=1,p-means=0;1,p-weights=1,q-means=0,q-weights=1'
usage "q-weights sum to" epsilon --delta 1e-5 'mixture-gaussian:sigma=1,p-means=0,p-weights=1,q-means=0;1,q-weights=0.5;0.4'
usage "negative" epsilon --delta 1e-5 'mixture-gaussian:sigma=1,p-means=0;1,p-weights=-0.5;1.5,q-means=0,q-weights=1'
usage "'p-means' has an empty value" epsilon --delta 1e-5 'mixture-gaussian:sigma=1,p-means=,p-weights=1,q-means=0,q-weights=1'
usage "'nan'" epsilon --delta 1e-5 'mixture-gaussian:sigma=1,p-means=nan,p-weights=1,q-means=0,q-weights=1'
usage "'q-means'" epsilon --delta 1e-5 'mixture-gaussian:sigma=1,p-means=0,p-weights=1,q-weights=1'
usage "sigma='0'" epsilon --delta 1e-5 'mixture-gaussian:sigma=0,p-means=0,p-weights=1,q-means=1,q-weights=1'

usage "larger than n" epsilon --delta 1e-5 wor-gaussian:batch=11,n=10,sigma=1
usage "batch='0'" epsilon --delta 1e-5 wor-gaussian:batch=0,n=10,sigma=1
usage "n='2.5'" epsilon --delta 1e-5 wor-gaussian:batch=1,n=2.5,sigma=1
usage "sensitivity='0'" epsilon --delta 1e-5 wor-gaussian:batch=1,n=2,sigma=1,sensitivity=0
usage "'n'" epsilon --delta 1e-5 wor-gaussian:batch=1,sigma=1

P='q=0.1,d=5,C=1,sigma=1'
for v in 0 -0.1 1.5 abc; do usage "p='$v'" epsilon --delta 1e-5 "random-participation:p=$v,$P"; done
for v in 0 -0.1 1.0001; do usage "q='$v'" epsilon --delta 1e-5 "random-participation:p=0.1,q=$v,d=5,C=1,sigma=1"; done
for v in 0 -3 2.5; do usage "d='$v'" epsilon --delta 1e-5 "random-participation:p=0.1,q=0.1,d=$v,C=1,sigma=1"; done
usage "C='0'" epsilon --delta 1e-5 random-participation:p=0.1,q=0.1,d=5,C=0,sigma=1
usage "sigma='-1'" epsilon --delta 1e-5 random-participation:p=0.1,q=0.1,d=5,C=1,sigma=-1
usage "one of wcs, cs, thm41, ols" epsilon --delta 1e-5 random-participation:p=0.1,q=0.1,d=5,C=1,sigma=1,analysis=best
usage "'d'" epsilon --delta 1e-5 random-participation:p=0.1,q=0.1,C=1,sigma=1

# calibrate: the '?' and the options.
usage "no '?'" calibrate --epsilon 1 --delta 1e-5 gaussian:sigma=1
usage "a second '?'" calibrate --epsilon 1 --delta 1e-5 gaussian:sigma=? laplace:b=?
usage "a second '?'" calibrate --epsilon 1 --delta 1e-5 'mixture-gaussian:sigma=?,p-means=0,p-weights=1,q-means=1,q-weights=1+gaussian:sigma=?'
usage "--param b does not match" calibrate --epsilon 1 --delta 1e-5 --param b gaussian:sigma=?
usage "not a noise key" calibrate --epsilon 1 --delta 1e-5 --param q gaussian:sigma=?
usage "not for q" calibrate --epsilon 1 --delta 1e-5 poisson-gaussian:q=?,sigma=1
usage "not for count" calibrate --epsilon 1 --delta 1e-5 gaussian:sigma=1,count=?
usage "only allowed in 'pldkit calibrate'" epsilon --delta 1e-5 gaussian:sigma=?
usage "'?5'" calibrate --epsilon 1 --delta 1e-5 gaussian:sigma=?5
usage "missing --epsilon" calibrate --delta 1e-5 gaussian:sigma=?
usage "missing --delta" calibrate --epsilon 1 gaussian:sigma=?
usage "EVENT" calibrate --epsilon 1 --delta 1e-5
for v in 2 0:2 3:2 a:2 1:b 1:2:3 ""; do usage "--range" calibrate --epsilon 1 --delta 1e-5 --range "$v" gaussian:sigma=?; done
for v in 0 1 -0.1 abc; do usage "--tolerance" calibrate --epsilon 1 --delta 1e-5 --tolerance "$v" gaussian:sigma=?; done
for v in -1 inf abc; do usage "--epsilon" calibrate --epsilon "$v" --delta 1e-5 gaussian:sigma=?; done
for v in 0 1 abc; do usage "--delta" calibrate --epsilon 1 --delta "$v" gaussian:sigma=?; done
usage "'--epsilon-range'" calibrate --epsilon 1 --delta 1e-5 --epsilon-range 0:1:3 gaussian:sigma=?
usage "'--param'" epsilon --delta 1e-5 --param sigma gaussian:sigma=1

# ---------------------------------------------------------------------------
# Optional: memory errors and leaks on good and bad paths.

if [ "${PLDKIT_TEST_VALGRIND:-0}" = 1 ] && command -v valgrind >/dev/null 2>&1; then
  vg() {
    valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
      --error-exitcode=99 "$BIN" "$@" >/dev/null 2>"$ERR"
    if [ $? -eq 99 ]; then bad "valgrind: pldkit $*"; sed 's/^/  /' "$ERR" | head -n 20; else ok; fi
  }
  vg epsilon --delta 1e-5 poisson-gaussian:q=0.01,sigma=1,count=100 laplace:b=3
  vg delta --epsilon 1 --json 'finite:p=0.5;0.5,q=0.25;0.75,count=4'
  vg curve --epsilon-range 0:3:7 --json discrete-laplace:scale=2
  vg epsilon --delta 1e-5 gaussian:sigma=1 'finite:p=0.5;0.6,q=0.5;0.5'
  vg epsilon --delta 1e-5 --discretization 1e-7 --max-grid 16 laplace:b=1
  vg demo
  vg --help
  vg epsilon --delta 1e-5 'random-selection:weights=0.3;0.7[gaussian:sigma=2,count=10+laplace:b=3|random-selection:weights=0.5;0.5[gaussian:sigma=1|laplace:b=2]]'
  vg epsilon --delta 1e-5 'random-selection:weights=0.5;0.5[gaussian:sigma=1|laplace:b=0]'
  vg epsilon --delta 1e-5 'random-selection:weights=0.5;0.5[gaussian:sigma=1|laplace:b=1'
  vg calibrate --epsilon 1 --delta 1e-5 --json 'random-selection:weights=0.5;0.5[gaussian:sigma=?|laplace:b=1]'
  vg calibrate --epsilon 1 --delta 1e-5 --range 1:2 gaussian:sigma=?,count=10
  vg delta --epsilon 0.5 'mixture-gaussian:sigma=1,p-means=0;2,p-weights=0.5;0.5,q-means=1,q-weights=1' wor-gaussian:batch=3,n=10,sigma=1
  vg epsilon --delta 1e-5 random-participation:p=0.1,q=0.1,d=3,C=1,sigma=1,count=10
  vg epsilon --delta 1e-6 random-participation:p=0.1,q=0.1,d=3,C=1,sigma=1,analysis=ols
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
