#!/usr/bin/env bash
# Flags that mean proven (issue 16 item 1): every event kind and every
# random-participation analysis, through every JSON answer that carries a
# "certified" key (epsilon and delta on both backends, curve, rdp-curve,
# calibrate), checked against the table below of which answers are proven
# bounds.  Proven: "certified" is "upper" (true for the closed form ols).
# Not proven: "certified" is false and "kind" says what the value is
# ("lower_limit" for analysis=cs, "one-instance value" for thm41), and the
# text answer never says "certified bound".  The event list of --help must
# equal the table's, so a new event cannot slip past this test.
#
# usage: tests/test_certified_flags.sh PATH/TO/pldkit
set -u

BIN=${1:?usage: test_certified_flags.sh PATH/TO/pldkit}
. "$(dirname "$0")/cli_harness.sh"

expect_ok "save a ledger" save --out "$tmp/l.pld" gaussian:sigma=2,count=3

# name@instance@expected: proven, lower_limit or one-instance value
cat >"$tmp/table" <<TABLE
gaussian@gaussian:sigma=2,count=3@proven
laplace@laplace:b=2,count=3@proven
discrete-laplace@discrete-laplace:scale=3,sensitivity=2@proven
discrete-gaussian@discrete-gaussian:sigma=3,sensitivity=2,count=5@proven
randomized-response@randomized-response:epsilon=1,k=4@proven
poisson-gaussian@poisson-gaussian:q=0.01,sigma=1,count=100@proven
poisson-laplace@poisson-laplace:q=0.1,b=2,sensitivity=1@proven
poisson-sampled@poisson-sampled:q=0.1,count=5[discrete-laplace:scale=3,sensitivity=2]@proven
poisson-sampled@poisson-sampled:q=0.1[gaussian:sigma=1]@proven
poisson-sampled@poisson-sampled:q=0.5[random-participation:p=0.5,q=0.1,d=10,C=1,sigma=1,analysis=cs]@lower_limit
finite@finite:p=0.5;0.5,q=1;0@proven
mixture-gaussian@mixture-gaussian:sigma=1,p-means=2,p-weights=1,q-means=0,q-weights=1,count=5@proven
wor-gaussian@wor-gaussian:batch=10,n=100,sigma=1@proven
random-participation@random-participation:p=0.5,q=0.1,d=10,C=1,sigma=1,analysis=wcs@proven
random-participation@random-participation:p=0.5,q=0.1,d=10,C=1,sigma=1,analysis=mwcs@proven
random-participation@random-participation:p=1,q=0.1,d=10,C=1,sigma=1,analysis=ols@proven
random-participation@random-participation:p=0.5,q=0.1,d=10,C=1,sigma=1,analysis=cs@lower_limit
random-participation@random-participation:p=0.5,q=0.1,d=1,C=1,sigma=1,analysis=thm41@one-instance value
random-participation@random-participation:p=0.5,q=0.1,d=10,C=1,sigma=2.3715,analysis=thm41@one-instance value
model-splitting@model-splitting:d=2,k=1,sigma=1,c=1,count=3@proven
balanced-iteration@balanced-iteration:T=10,k=1,sigma=1,c=1@proven
poisson-splitting@poisson-splitting:q=0.2,d=3,sigma=1,c=1,count=5@proven
partial-splitting@partial-splitting:q=0.2,d=3,sigma=1,c-split=1,c-shared=0.5,count=5@proven
bounded-gaussian@bounded-gaussian:kind=rectified,theta=0.4,a=1.5,sigma=0.7,c=0.8@proven
bounded-gaussian@bounded-gaussian:kind=truncated,theta=0.4,a=1.5,sigma=0.7,c=0.8@proven
poisson-bounded-gaussian@poisson-bounded-gaussian:q=0.3,kind=truncated,theta=0.4,a=1.5,sigma=0.7,c=0.8@proven
merge-lc@merge-lc:lambda=0.5;0.5,q=0.01;0.01,sigma=1;1.2,count=10@proven
truncated-poisson@truncated-poisson:n=1000,q=0.01,B=20,sigma=1,count=10@proven
fixed-batch@fixed-batch:b=10,n=1000,sigma=1,count=10@proven
balls-in-bins@balls-in-bins:T=10,sigma=1,count=2@proven
bandmf@bandmf:steps=100,bands=4,q=0.04,sigma=2@proven
pld@pld:file=$tmp/l.pld@proven
random-selection@random-selection:weights=0.5;0.5[gaussian:sigma=2|laplace:b=2]@proven
random-selection@random-selection:weights=0.5;0.5[gaussian:sigma=2|random-participation:p=0.5,q=0.1,d=10,C=1,sigma=1,analysis=cs]@lower_limit
TABLE

# every event of --help is in the table
build_help=$("$BIN" events 2>/dev/null | awk '/^  [a-z][a-z0-9-]*  / {print $1}' | sort -u)
table_names=$(cut -d'@' -f1 "$tmp/table" | sort -u)
if [ "$build_help" = "$table_names" ]; then ok; else
  bad "the event table differs from --help: help [$(echo $build_help)] table [$(echo $table_names)]"
fi

# check_json DESCRIPTION EXPECTED: the "certified"/"kind" keys of $OUT
check_json() {
  if python3 - "$OUT" "$2" <<'PY'; then ok; else bad "$1: certified flag wrong: $(tr -d '\n' <"$OUT" | head -c 400)"; fi
import json, sys
d = json.load(open(sys.argv[1]))
want = sys.argv[2]
def chk(o):
    if "certified" not in o:
        return True
    c = o["certified"]
    if want == "proven":
        return (c == "upper" or c is True) and o.get("kind") in (None, "upper bound")
    return c is False and o.get("kind") == want
objs = [d] + [v for v in d.values() if isinstance(v, dict)]
assert any("certified" in o for o in objs), "no certified key"
sys.exit(0 if all(chk(o) for o in objs) else 1)
PY
}

# check_text DESCRIPTION EXPECTED: a non-proven answer never claims a bound
check_text() {
  if [ "$2" = proven ] || ! sed 's/NOT a certified bound//' "$OUT" | grep -qi "certified bound\|certified upper\|certified: yes"; then ok; else
    bad "$1: text claims a certified bound: $(head -c 300 "$OUT")"
  fi
}

n=0
while IFS='@' read -r name ev want; do
  n=$((n + 1))
  closed=0 pldq=1
  case "$ev" in *analysis=thm41*|*analysis=ols*) closed=1 ;; esac
  # RDP-only events (no PLD in pldkit): the RDP answers only
  case "$ev" in model-splitting:*|balanced-iteration:*) pldq=0 ;; esac
  # proven answers: the PLD and RDP epsilon; others: every query
  qs=("epsilon --delta 1e-5")
  [ "$want" = proven ] || qs+=("delta --epsilon 1")
  for q in "${qs[@]}"; do
    if [ "$pldq" = 1 ]; then
      # shellcheck disable=SC2086
      if expect_answer "$name $q json" $q --json "$ev"; then check_json "$name ($ev) $q" "$want"; fi
      # shellcheck disable=SC2086
      if expect_answer "$name $q text" $q "$ev"; then check_text "$name ($ev) $q" "$want"; fi
    fi
    [ "$closed" = 1 ] && continue
    [ "$name" = pld ] && continue
    # shellcheck disable=SC2086
    if expect_answer "$name $q rdp json" $q --backend rdp --json "$ev"; then check_json "$name ($ev) $q rdp" "$want"; fi
    # shellcheck disable=SC2086
    if expect_answer "$name $q rdp text" $q --backend rdp "$ev"; then check_text "$name ($ev) $q rdp" "$want"; fi
  done
  [ "$closed" = 1 ] && continue
  [ "$want" = proven ] && [ "$n" -gt 3 ] && continue
  if [ "$pldq" = 1 ] && expect_answer "$name curve" curve --epsilon-range 0.5:2:3 --json "$ev"; then check_json "$name ($ev) curve" "$want"; fi
  if [ "$name" != pld ] && expect_answer "$name rdp-curve" rdp-curve --orders '2;8' --json "$ev"; then
    check_json "$name ($ev) rdp-curve" "$want"
  fi
done <"$tmp/table"

# calibrate: the participation analyses (sigma=?), both backends where any
for an in wcs mwcs ols cs thm41; do
  p=0.5
  [ "$an" = ols ] && p=1
  case $an in cs) want=lower_limit ;; thm41) want="one-instance value" ;; *) want=proven ;; esac
  ev="random-participation:p=$p,q=0.1,d=10,C=1,sigma=?,analysis=$an"
  if expect_answer "calibrate $an json" calibrate --epsilon 2 --delta 1e-5 --json "$ev"; then check_json "calibrate $an" "$want"; fi
  if expect_answer "calibrate $an text" calibrate --epsilon 2 --delta 1e-5 "$ev"; then
    if [ "$want" = proven ] || ! sed 's/NOT a certified bound//' "$OUT" | grep -qi "certified bound"; then ok; else
      bad "calibrate $an: text claims a certified bound: $(head -c 300 "$OUT")"
    fi
  fi
done

# MS-PAFL closed forms (`pldkit mspafl`): the flag of each, per this table
# (docs/papers/ms-pafl.md and its errata): Lemma 1 proven where
# the exact Gaussian curve confirms it; Thm 1 proven without replacement and
# for Poisson sampling, not with replacement (group privacy ignored); Thm 2
# and Cor. 1 never (hidden participation); Thm 3 never (not a bound for
# p >~ 0.5); Thm 4 only on a proven per-round bound (Thm 1), never on
# Cor. 1.  "exact" says whether the PLD of the same protocol is reported.
M="--eps_l=1 --delta_l=1e-4"
cat >"$tmp/mtable" <<MTABLE
lemma1 $M@true@true
lemma1 --eps_l=10 --delta_l=0.5@false@true
thm1 $M --q=0.2@true@true
thm1 $M --sampling=wor --batch=25 --n=325@true@true
thm1 $M --sampling=wr --batch=25 --n=325@false@false
thm2 $M --p-list=0.5;1 --q-list=0.2;0.1@false@true
cor1 $M --p=0.5 --q=0.2 --N=100@false@true
cor1 $M --p=1 --q=0.2 --N=100 --sampling=poisson@false@true
thm3 $M --p=1 --q=0.2 --T=1000 --c0=appendix@false@true
thm3 $M --p=0.1 --q=0.2 --T=10 --c0=0.5@false@true
thm4 $M --p=0.5 --q=0.2 --N=100 --T=10@false@true
thm4 $M --q=0.2 --T=10 --round=thm1@true@true
thm4 $M --sampling=wor --batch=25 --n=325 --T=10 --round=thm1@true@true
thm4 $M --sampling=wr --batch=25 --n=325 --T=10 --round=thm1@false@false
MTABLE
while IFS='@' read -r args want exact; do
  # shellcheck disable=SC2086
  if expect_ok "mspafl $args json" mspafl $args --json; then
    if python3 - "$OUT" "$want" "$exact" <<'PY'; then ok; else bad "mspafl $args: flags wrong: $(tr -d '\n' <"$OUT" | head -c 400)"; fi
import json, sys
d = json.load(open(sys.argv[1]))
c = d["closed_form"]
want = sys.argv[2] == "true"
ok = c["certified"] is want and (c["kind"] == "proven bound") == want
ok = ok and d["exact_pld"]["available"] is (sys.argv[3] == "true")
sys.exit(0 if ok else 1)
PY
  fi
  # shellcheck disable=SC2086
  if expect_ok "mspafl $args text" mspafl $args; then
    line=$(grep '^certified: ' "$OUT")
    if { [ "$want" = true ] && [ "$line" = "certified: yes" ]; } ||
       { [ "$want" = false ] && [ "$line" = "certified: no" ] &&
         ! grep -q ", proven bound$" "$OUT"; }; then ok; else
      bad "mspafl $args: text flag wrong: $(head -c 300 "$OUT")"
    fi
  fi
done <"$tmp/mtable"

# bad input: one line on stderr, exit 2, nothing on stdout
for args in "thm9 $M" "thm1 --eps_l=2 --delta_l=1e-4 --q=0.1" "thm3 $M --q=0.2" \
            "cor1 $M --q=0.2 --beta=-1" "thm1 $M --q=nan" "thm1 $M --sampling=wor --batch=5 --n=4" \
            "thm2 $M --p-list=0.5 --q-list=0.1;0.2" "thm1 $M --q=0.2 --bogus=1" "lemma1"; do
  # shellcheck disable=SC2086
  run mspafl $args
  if [ "$rc" -eq 2 ] && [ ! -s "$OUT" ] && [ "$(err_lines)" -eq 1 ]; then ok; else
    bad "mspafl $args: want exit 2 and one stderr line, got exit $rc: $(head -c 200 "$ERR")"
  fi
done

echo "$n events, $pass passed, $fail failed"
[ "$fail" -eq 0 ]
