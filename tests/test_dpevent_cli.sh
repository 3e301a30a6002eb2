#!/usr/bin/env bash
# --events-json: dp_accounting's serialized DpEvent trees through the CLI
# (the library's translation, catalogue/dpevent.c).  Answers are checked
# against the closed form of the composed Gaussian and against the same
# mechanisms given as EVENT texts (to the last bit); bad trees and bad
# JSON exit 2 with one line naming the event and its place.
# (tests/test_python.sh checks CLI == pldkit.dp_accounting on every event.)
#
# usage: tests/test_dpevent_cli.sh PATH/TO/pldkit
set -u

BIN=${1:?usage: test_dpevent_cli.sh PATH/TO/pldkit}
. "$(dirname "$0")/cli_harness.sh"

# expect_refused DESCRIPTION NEEDLE ARGS...: exit 2, nothing on stdout, one
# stderr line "pldkit: ..." containing NEEDLE.
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

# the "key" number of $OUT (JSON)
jnum() { python3 -c 'import json,sys; print(repr(float(json.load(open(sys.argv[1]))[sys.argv[2]])))' "$OUT" "$1"; }

J=$tmp/ev.json

# 1. SelfComposed(Gaussian(2), 50): the composed Gaussian, mu = sqrt(50)/2;
# delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) (Dong, Roth
# and Su 2019), computed here with erfc: the CLI's certified upper end must
# be >= it and within a relative 1e-9.
cat >"$J" <<'X'
{"class_name": "SelfComposedDpEvent", "count": 50,
 "event": {"class_name": "GaussianDpEvent", "noise_multiplier": 2.0}}
X
if expect_ok "gaussian tree delta" delta --epsilon 1 --json --events-json "$J"; then
  got=$(jnum delta_upper)
  if python3 - "$got" <<'X'; then ok; else bad "gaussian tree: delta_upper $got vs closed form"; fi
import math, sys
got = float(sys.argv[1])
mu, e = math.sqrt(50) / 2, 1.0
Phi = lambda x: 0.5 * math.erfc(-x / math.sqrt(2))
true = Phi(-e / mu + mu / 2) - math.exp(e) * Phi(-e / mu - mu / 2)
sys.exit(0 if true * (1 - 1e-12) <= got <= true * (1 + 1e-9) else 1)
X
fi
# REPLACE_ONE doubles the sensitivity: the same as sigma 1 under add/remove.
expect_ok "gaussian tree, REPLACE_ONE" epsilon --delta 1e-5 --json --relation REPLACE_ONE --events-json "$J" &&
  a=$(jnum epsilon_upper) &&
  expect_ok "gaussian text" epsilon --delta 1e-5 --json gaussian:sigma=1,count=50 &&
  b=$(jnum epsilon_upper) &&
  if [ "$a" = "$b" ]; then ok; else bad "REPLACE_ONE tree $a != gaussian:sigma=1,count=50 $b"; fi

# 2. DP-SGD and Laplace, nested, vs the same EVENT texts: the same bits.
cat >"$J" <<'X'
{"class_name": "ComposedDpEvent", "events": [
  {"class_name": "SelfComposedDpEvent", "count": 200, "event":
    {"class_name": "PoissonSampledDpEvent", "sampling_probability": 0.01,
     "event": {"class_name": "GaussianDpEvent", "noise_multiplier": 0.9}}},
  {"class_name": "LaplaceDpEvent", "noise_multiplier": 3.0}]}
X
expect_ok "dp-sgd tree" epsilon --delta 1e-5 --json --events-json "$J" &&
  a=$(jnum epsilon_upper) &&
  expect_ok "dp-sgd text" epsilon --delta 1e-5 --json poisson-gaussian:q=0.01,sigma=0.9,count=200 laplace:b=3 &&
  b=$(jnum epsilon_upper) &&
  if [ "$a" = "$b" ]; then ok; else bad "tree $a != texts $b"; fi
# the same tree from stdin, in json.dumps' list form of to_named_tuple()
L='["m", "ComposedDpEvent", [["m", "SelfComposedDpEvent", ["m", "PoissonSampledDpEvent", 0.01, ["m", "GaussianDpEvent", 0.9]], 200], ["m", "LaplaceDpEvent", 3.0]]]'
run epsilon --delta 1e-5 --json --events-json - <<<"$L"
if [ "$rc" -eq 0 ] && [ "$(jnum epsilon_upper)" = "$a" ]; then ok; else bad "list form from stdin: rc $rc"; fi
# curve and save take it too
expect_ok "curve" curve --epsilon-range 0:2:3 --events-json "$J"
expect_ok "save" save --out "$tmp/s.pld" --events-json "$J"
expect_ok "saved file answers" epsilon --delta 1e-5 --json "pld:file=$tmp/s.pld"

# 2b. PoissonSampled of the other mechanisms: the catalogue's
# poisson-sampled:q=Q[MEMBER] (discrete Laplace: noise_parameter 0.5 is the
# scale 2, rounded down to the double below, so the text holds that double)
cat >"$J" <<'X'
{"class_name": "SelfComposedDpEvent", "count": 10, "event":
  {"class_name": "PoissonSampledDpEvent", "sampling_probability": 0.1,
   "event": {"class_name": "DiscreteLaplaceDpEvent", "noise_parameter": 0.5,
             "sensitivity": 1}}}
X
expect_ok "poisson discrete-laplace tree" epsilon --delta 1e-5 --json --events-json "$J" &&
  a=$(jnum epsilon_upper) &&
  s=$(python3 -c 'import math; print(repr(math.nextafter(2.0, 0.0)))') &&
  expect_ok "poisson discrete-laplace text" epsilon --delta 1e-5 --json "poisson-sampled:q=0.1,count=10[discrete-laplace:scale=$s,sensitivity=1]" &&
  b=$(jnum epsilon_upper) &&
  if [ "$a" = "$b" ]; then ok; else bad "poisson discrete-laplace tree $a != text $b"; fi
echo '{"class_name": "PoissonSampledDpEvent", "sampling_probability": 0.2, "event": {"class_name": "EpsilonDeltaDpEvent", "epsilon": 1, "delta": 0}}' >"$J"
expect_ok "poisson epsilon-delta tree" delta --epsilon 0.1 --json --events-json "$J" &&
  if python3 - "$(jnum delta_upper)" <<'X'; then ok; else bad "poisson (1, 0)-DP: delta_upper $(jnum delta_upper)"; fi
# (1, 0)-DP subsampled at q: (log(1 + q (e - 1)), 0)-DP exactly, and its
# pair (P, Q) = (a, b), (b, a) mixed: delta(eps) = max(0, P' - e^eps Q') on
# the outcome where P' > Q', P' = (1-q) b + q a, Q' = b, a = e/(1+e)
# (the other direction is smaller); the translation raises eps by 1e-12
# relative, so the upper end is >= this and within 1e-9 relative.
import math, sys
got, q, e = float(sys.argv[1]), 0.2, 0.1
a = math.e / (1 + math.e); b = 1 - a
d1 = max(0.0, ((1 - q) * a + q * b) - math.exp(e) * a)  # outcome 1
d2 = max(0.0, ((1 - q) * b + q * a) - math.exp(e) * b)  # outcome 2
rev = max(0.0, a - math.exp(e) * ((1 - q) * a + q * b)) + \
      max(0.0, b - math.exp(e) * ((1 - q) * b + q * a))
true = max(d1 + d2, rev)
sys.exit(0 if true <= got <= true * (1 + 1e-9) + 1e-15 else 1)
X
echo '{"class_name": "PoissonSampledDpEvent", "sampling_probability": 0.1, "event": {"class_name": "RandomizedResponseDpEvent", "noise_parameter": 0.5, "num_buckets": 4}}' >"$J"
expect_refused "poisson of randomized response" "replace-one" epsilon --delta 1e-5 --relation REPLACE_SPECIAL --events-json "$J"
echo '{"class_name": "PoissonSampledDpEvent", "sampling_probability": 0.1, "event": {"class_name": "PoissonSampledDpEvent", "sampling_probability": 0.5, "event": {"class_name": "DiscreteGaussianDpEvent", "sigma": 2, "sensitivity": 1, "dimension": 1}}}' >"$J"
expect_refused "poisson of poisson" "product of the two sampling probabilities" epsilon --delta 1e-5 --events-json "$J"

# 3. a non-private event: epsilon inf, delta 1 (as dp_accounting)
echo '{"class_name": "ComposedDpEvent", "events": [{"class_name": "GaussianDpEvent", "noise_multiplier": 2}, {"class_name": "NonPrivateDpEvent"}]}' >"$J"
expect_ok "non-private" delta --epsilon 1 --json --events-json "$J" &&
  if [ "$(jnum delta_upper)" = "1.0" ]; then ok; else bad "non-private delta $(jnum delta_upper)"; fi

# 4. refused: unsupported events named with their place, bad fields, bad JSON
echo '{"class_name": "ComposedDpEvent", "events": [{"class_name": "GaussianDpEvent", "noise_multiplier": 2}, {"class_name": "SelfComposedDpEvent", "count": 3, "event": {"class_name": "ZCDpEvent", "rho": 0.1}}]}' >"$J"
expect_refused "unsupported ZCDp" "event.events[1].event: ZCDpEvent is not supported" epsilon --delta 1e-5 --events-json "$J"
echo '{"class_name": "FancyDpEvent"}' >"$J"
expect_refused "unknown class" "FancyDpEvent is not a dp_accounting DpEvent" epsilon --delta 1e-5 --events-json "$J"
echo '{"class_name": "LaplaceDpEvent", "noise_multiplier": 1}' >"$J"
expect_refused "laplace under REPLACE_ONE" "not supported under neighboring relation REPLACE_ONE" epsilon --delta 1e-5 --relation REPLACE_ONE --events-json "$J"
echo '{"class_name": "GaussianDpEvent", "noise_multiplier": "big"}' >"$J"
expect_refused "string noise" "event: noise_multiplier must be a number" epsilon --delta 1e-5 --events-json "$J"
echo '{"class_name": "GaussianDpEvent", "sigma": 1}' >"$J"
expect_refused "wrong field" "GaussianDpEvent has no field" epsilon --delta 1e-5 --events-json "$J"
echo '{"class_name": "SelfComposedDpEvent", "count": 2.5, "event": {"class_name": "GaussianDpEvent", "noise_multiplier": 1}}' >"$J"
expect_refused "fractional count" "count must be an integer" epsilon --delta 1e-5 --events-json "$J"
echo '{"class_name": "GaussianDpEvent", "noise_multiplier": -1}' >"$J"
expect_refused "negative sigma" "sigma" epsilon --delta 1e-5 --events-json "$J"
echo '{"class_name": "NoOpDpEvent"}' >"$J"
expect_refused "only no-ops" "holds no mechanism" epsilon --delta 1e-5 --events-json "$J"
printf '{"class_name": "GaussianDpEvent", "noise_multiplier": 1' >"$J"
expect_refused "truncated JSON" "not valid JSON" epsilon --delta 1e-5 --events-json "$J"
echo '[1, 2, 3]' >"$J"
expect_refused "not an event" "expected an event" delta --epsilon 1 --events-json "$J"
expect_refused "missing file" "cannot open" epsilon --delta 1e-5 --events-json "$tmp/nope.json"
expect_refused "bad relation" "--relation" epsilon --delta 1e-5 --relation SOMETIMES --events-json "$J"
expect_refused "relation alone" "applies only with --events-json" epsilon --delta 1e-5 --relation REPLACE_ONE gaussian:sigma=1
expect_refused "not for calibrate" "does not apply" calibrate --epsilon 1 --delta 1e-5 --events-json "$J" gaussian:sigma=?

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
