#!/usr/bin/env bash
# Determinism: the same command gives bit-identical output on repeated runs
# (FFTW plans with FFTW_ESTIMATE, no wisdom).  The only field allowed to
# differ is the wall time ("seconds").
set -u
bin=${1:?usage: test_determinism.sh PATH_TO_PLDKIT}
pass=0 fail=0
cmds=(
  "epsilon --delta 1e-5 --json poisson-gaussian:q=0.004266666666666667,sigma=1.1,count=14063"
  "delta --epsilon 1.5 --json poisson-laplace:q=0.05,b=2,count=300 randomized-response:epsilon=0.3,k=4,count=7"
  "curve --epsilon-range 0:4:9 --json gaussian:sigma=3,count=20 laplace:b=4,count=5"
  "epsilon --delta 1e-6 --json --discretization 0.001 finite:p=0.6;0.4,q=0.3;0.7,count=50"
)
for c in "${cmds[@]}"; do
  a=$("$bin" $c | grep -v '"seconds"')
  b=$("$bin" $c | grep -v '"seconds"')
  c2=$(env FFTW_WISDOM=/nonexistent "$bin" $c | grep -v '"seconds"')
  if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" = "$c2" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "not deterministic: pldkit $c" >&2
  fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
