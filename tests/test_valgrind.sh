#!/usr/bin/env bash
# The CLI under valgrind (memcheck: invalid accesses, uninitialised values,
# definite and indirect leaks): one command per event family, backend and
# subcommand, the bad-input and file paths -- a representative set, so that
# `make test` stays within its time (the whole contract runs natively in
# test_cli.sh and the quick suite under AddressSanitizer).
#
# usage: tests/test_valgrind.sh PATH/TO/pldkit [SHARD NSHARDS]
#   with SHARD NSHARDS only the commands i with i % NSHARDS == SHARD run
#   (make test runs two shards at once, one per core)
set -u
BIN=${1:?usage: test_valgrind.sh PATH/TO/pldkit [SHARD NSHARDS]}
SHARD=${2:-0}
NSHARDS=${3:-1}
. "$(dirname "$0")/cli_harness.sh"
if ! command -v valgrind >/dev/null 2>&1; then
  echo "test_valgrind.sh: valgrind is not installed"
  echo "0 passed, 1 failed"
  exit 1
fi
vg_i=-1
vg() {
  vg_i=$((vg_i + 1))
  [ $((vg_i % NSHARDS)) -eq "$SHARD" ] || return 0
  valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
    --error-exitcode=99 "$BIN" "$@" >/dev/null 2>"$ERR"
  if [ $? -eq 99 ]; then bad "valgrind: pldkit $*"; sed 's/^/  /' "$ERR" | head -n 20; else ok; fi
}
# the files the commands read: a saved PLD, a randomized-response ledger and
# one whose format version is unknown
L=$tmp/ledger
"$BIN" save --out "$L.1" gaussian:sigma=2,count=10 >/dev/null
"$BIN" save --out "$L.rr" randomized-response:epsilon=1,k=2,count=2 >/dev/null
python3 - "$L.1" "$L.ver" <<'EOF'
import sys
v = bytearray(open(sys.argv[1], "rb").read())
v[8] = 99                                   # version 99, checksum recomputed
h = 1469598103934665603
for x in v[:-8]:
    h = ((h ^ x) * 1099511628211) & (2**64 - 1)
v[-8:] = h.to_bytes(8, "little")
open(sys.argv[2], "wb").write(v)
EOF
LAPSEL='random-selection:weights=1[laplace:b=?,count=10]'

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
vg epsilon --delta 1e-5 --backend both --json poisson-gaussian:q=0.01,sigma=1,count=100 'finite:p=0.6;0.4,q=0.4;0.6' discrete-laplace:scale=2
vg delta --epsilon 1 --backend both bounded-gaussian:kind=rectified,theta=0.3,a=1,sigma=1,c=1,count=3
vg rdp-curve --orders '2;4;8' model-splitting:d=4,k=2,sigma=1,c=1 balanced-iteration:T=10,k=4,sigma=2,c=1 bounded-gaussian:kind=truncated,theta=0,a=1,sigma=1,c=1
vg epsilon --delta 1e-5 --backend rdp --orders 2:20:10 'random-selection:weights=0.3;0.7[model-splitting:d=3,k=1,sigma=1,c=1,count=10+laplace:b=1|random-selection:weights=0.5;0.5[gaussian:sigma=8|random-participation:p=0.1,q=0.1,d=2,C=1,sigma=1]]'
vg calibrate --epsilon 2 --delta 1e-5 'random-selection:weights=0.5;0.5[bounded-gaussian:kind=rectified,theta=0.3,a=1,sigma=?,c=1|gaussian:sigma=3]'
vg calibrate --epsilon 1 --delta 1e-5 --backend both --json poisson-gaussian:q=0.01,sigma=1,count=?
vg calibrate --epsilon 10 --delta 1e-5 --max-grid 64 "$LAPSEL"
vg calibrate --epsilon 10 --delta 1e-5 --max-grid 64 --range 0.8:1.05 "$LAPSEL"
vg calibrate --epsilon 0.015 --delta 1e-6 random-participation:p=0.001,q=0.1,d=30,C=1,sigma=?,analysis=thm41
vg calibrate --epsilon 2 --delta 1e-5 --backend rdp --orders '2;4;8' model-splitting:d=2,k=1,sigma=?,c=1
vg epsilon --delta 1e-5 --backend rdp --orders '3;2' gaussian:sigma=1
vg epsilon --delta 1e-5 model-splitting:d=3,k=1,sigma=1,c=1
vg save --out "$L.vg" "pld:file=$L.1" gaussian:sigma=2,count=5
vg epsilon --delta 1e-5 --backend both "pld:file=$L.rr,count=2"
vg epsilon --delta 1e-5 "pld:file=$L.ver"
vg ledger add "$L.1" gaussian:sigma=3
vg ledger show "$L.1" --delta 1e-5
vg epsilon --delta 1e-5 'gaussian:sigma=1,count=?'
vg events

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
