#!/usr/bin/env bash
# `pldkit merge` (the merge planner): output formats, the paper's MNIST
# configuration, and every class of bad configuration (exit 2, exactly one
# line on stderr naming the key or problem, nothing on stdout).
#
# usage: tests/test_merge_cli.sh PATH/TO/pldkit
set -u

BIN=${1:?usage: test_merge_cli.sh PATH/TO/pldkit}
DATA=$(cd "$(dirname "$0")" && pwd)/data
. "$(dirname "$0")/cli_harness.sh"

# expect_usage DESCRIPTION PATTERN ARGS...: exit 2, one stderr line starting
# "pldkit: " and matching PATTERN (grep -E), empty stdout.
expect_usage() {
  local what=$1 pat=$2
  shift 2
  run "$@"
  if [ "$rc" -ne 2 ]; then bad "$what: exit $rc (want 2)"; return; fi
  if [ -s "$OUT" ]; then bad "$what: stdout not empty"; return; fi
  if [ "$(err_lines)" -ne 1 ]; then bad "$what: $(err_lines) stderr lines"; return; fi
  if ! grep -q '^pldkit: ' "$ERR"; then bad "$what: no 'pldkit: ' prefix"; return; fi
  if ! grep -Eq -- "$pat" "$ERR"; then bad "$what: message does not match /$pat/"; return; fi
  ok
}

have_python=0
if command -v python3 >/dev/null 2>&1; then have_python=1; fi
# pycheck DESCRIPTION FILE PYTHON-CODE (the JSON object is `d`)
pycheck() {
  local what=$1 file=$2 code=$3
  if [ "$have_python" -eq 0 ]; then ok; return; fi
  if python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
$code
" "$file" 2>"$ERR"; then ok; else bad "$what"; fi
}

Q=0.004266666666666667
# The two MNIST runs (C, sigma) = (1, 2) and (1, 0.5) of App. H.1, the more
# private one first: merge must sort the less private one to index 0.
cat >"$tmp/two.json" <<JSON
{"delta": 1e-5, "epsilon": 2, "runs": [
  {"q": $Q, "sigma": 2, "clip": 1, "lr": 0.1, "steps": 705},
  {"q": $Q, "sigma": 0.5, "clip": 1, "lr": 0.1, "steps": 705}]}
JSON

# --- help -------------------------------------------------------------------
expect_ok "merge --help" merge --help && {
  grep -q -- '--config' "$OUT" && ok || bad "help lacks --config"
}

# --- N = 2 JSON -------------------------------------------------------------
if expect_ok "merge --json (N = 2)" merge --config "$tmp/two.json" \
    --epsilon 2 --delta 1e-5 --resolution 8 --json; then
  cp "$OUT" "$tmp/two_out.json"
  pycheck "JSON parses, sorted, 9 points" "$tmp/two_out.json" '
assert d["n_runs"] == 2 and len(d["grid"]) == 9, d["n_runs"]
assert [r["config_index"] for r in d["runs"]] == [1, 0]
assert d["runs"][0]["sigma"] == 0.5
for k in ("joint_pld", "joint_rdp", "advanced_composition"):
    assert k in d["baselines"]
'
  pycheck "LC PLD extreme weight > RS PLD extreme weight" \
    "$tmp/two_out.json" '
m = d["max_weight"]
assert m["lc_pld"] > m["rs_pld"] >= 0, m
assert m["lc_rdp"] >= 0 and m["lc_pld"] >= m["lc_rdp"], m
'
  pycheck "RS epsilon non-decreasing in the weight on run 0" \
    "$tmp/two_out.json" '
g = d["grid"]
ws = [p["weights"][0] for p in g]
assert ws == sorted(ws) and ws[0] == 0 and ws[-1] == 1
for k in ("rs_pld", "rs_rdp", "lc_pld", "lc_rdp"):
    e = [p[k]["epsilon_upper"] for p in g]
    if k.startswith("rs"):
        for a, b in zip(e, e[1:]):
            assert b >= a * (1 - 1e-9) - 1e-12, (k, a, b)
    for p in g:
        assert p[k]["feasible"] == (p[k]["epsilon_upper"] <= 2), p
'
  pycheck "PLD beats RDP; LC <= RS; LC PLD <= joint PLD" "$tmp/two_out.json" '
jp = d["baselines"]["joint_pld"]["epsilon_upper"]
for p in d["grid"]:
    assert p["lc_pld"]["epsilon_upper"] <= p["lc_rdp"]["epsilon_upper"] * 1.001
    assert p["rs_pld"]["epsilon_upper"] <= p["rs_rdp"]["epsilon_upper"] * 1.001
    assert p["lc_pld"]["epsilon_upper"] <= p["rs_pld"]["epsilon_upper"] * 1.02
    assert p["lc_pld"]["epsilon_upper"] <= jp * 1.02
    lo = p["lc_pld"]["epsilon_lower"]
    assert lo is not None and lo <= p["lc_pld"]["epsilon_upper"]
    assert p["rs_rdp"]["epsilon_lower"] is None
'
fi

# --- N = 2 CSV and text -----------------------------------------------------
if expect_ok "merge --csv" merge --config "$tmp/two.json" --resolution 4 --csv; then
  [ "$(head -n 1 "$OUT")" = "w0,w1,method,epsilon_upper,epsilon_lower,feasible" ] \
    && ok || bad "CSV header: $(head -n 1 "$OUT")"
  [ "$(wc -l <"$OUT")" -eq $((1 + 5 * 4)) ] && ok || bad "CSV rows: $(wc -l <"$OUT")"
  awk -F, 'NR > 1 && (NF != 6 || ($3 != "rs_pld" && $3 != "rs_rdp" && $3 != "lc_pld" && $3 != "lc_rdp")) { exit 1 }' "$OUT" \
    && ok || bad "CSV fields"
fi
if expect_ok "merge text" merge --config "$tmp/two.json" --resolution 2; then
  grep -q 'run 0 is the less private one' "$OUT" && ok || bad "text: sort note"
  grep -q 'advanced composition' "$OUT" && ok || bad "text: baselines"
fi

# --- the paper's MNIST configuration (N = 3, simplex grid) ------------------
if expect_ok "MNIST config --json" merge --config "$DATA/mnist_merge.json" \
    --resolution 2 --json; then
  cp "$OUT" "$tmp/mnist.json"
  pycheck "MNIST: 6 simplex points, LC <= joint" "$tmp/mnist.json" '
assert d["n_runs"] == 3 and len(d["grid"]) == 6 and d["max_weight"] is None
for p in d["grid"]:
    assert abs(sum(p["weights"]) - 1) < 1e-12
    assert p["lc_pld"]["epsilon_upper"] <= d["baselines"]["joint_pld"]["epsilon_upper"] * 1.02
    assert p["lc_rdp"]["epsilon_upper"] <= d["baselines"]["joint_rdp"]["epsilon_upper"] * 1.001
    assert p["lc_pld"]["epsilon_upper"] <= p["lc_rdp"]["epsilon_upper"] * 1.001
'
fi
expect_ok "MNIST config --csv" merge --config "$DATA/mnist_merge.json" --resolution 1 --csv \
  && { [ "$(head -n 1 "$OUT")" = "w0,w1,w2,method,epsilon_upper,epsilon_lower,feasible" ] \
    && [ "$(wc -l <"$OUT")" -eq $((1 + 3 * 4)) ] && ok || bad "MNIST CSV shape"; }

# --- bad configurations -----------------------------------------------------
cfg() { printf '%s' "$1" >"$tmp/bad.json"; }
R='{"q": 0.5, "sigma": 1, "clip": 1, "lr": 0.1, "steps": 10}'
cfg "{\"delta\": 1e-5, \"runs\": [$R], \"bogus\": 1}"
expect_usage "unknown top-level key" 'bogus.*unknown key' merge --config "$tmp/bad.json" --epsilon 1
cfg "{\"delta\": 1e-5, \"runs\": [$R, {\"q\": 0.5, \"sigma\": 1, \"clip\": 1, \"lr\": 0.1, \"steps\": 10, \"momentum\": 0.9}]}"
expect_usage "unknown run key" 'runs\[1\]\.momentum.*unknown key' merge --config "$tmp/bad.json" --epsilon 1
cfg "{\"delta\": 1e-5, \"runs\": [$R, {\"q\": 0.5, \"sigma\": \"1\", \"clip\": 1, \"lr\": 0.1, \"steps\": 10}]}"
expect_usage "wrong type" 'runs\[1\]\.sigma: expected a number' merge --config "$tmp/bad.json" --epsilon 1
cfg "{\"delta\": \"1e-5\", \"runs\": [$R]}"
expect_usage "wrong type (delta)" 'delta: expected a number' merge --config "$tmp/bad.json" --epsilon 1
cfg "{\"delta\": 1e-5, \"runs\": [{\"q\": 0.5, \"sigma\": 1, \"lr\": 0.1, \"steps\": 10}]}"
expect_usage "missing key" 'runs\[0\]\.clip: missing key' merge --config "$tmp/bad.json" --epsilon 1
# the grid's size is "resolution" (pldkit.h); "weights_grid", its former
# name, is still read, but not both at once
cfg "{\"delta\": 1e-5, \"runs\": [$R], \"resolution\": 0}"
expect_usage "resolution = 0" '^pldkit: .*resolution' merge --config "$tmp/bad.json" --epsilon 1
# a plan whose work (grid points x 2^runs) is above the time cap is refused
# before any work, naming the cap and the options that change it
cat >"$tmp/five.json" <<'EOF5'
{"delta": 1e-5, "epsilon": 5, "runs": [
 {"q": 0.01, "sigma": 1.0, "clip": 1, "lr": 0.1, "steps": 100},
 {"q": 0.01, "sigma": 1.1, "clip": 1, "lr": 0.1, "steps": 100},
 {"q": 0.01, "sigma": 1.2, "clip": 1, "lr": 0.1, "steps": 100},
 {"q": 0.01, "sigma": 1.3, "clip": 1, "lr": 0.1, "steps": 100},
 {"q": 0.01, "sigma": 1.4, "clip": 1, "lr": 0.1, "steps": 100}]}
EOF5
expect_usage "5 runs over the work cap" '32032 units of work, above max_work = 8192.*--max-work' merge --config "$tmp/five.json"
expect_usage "--max-work 0" 'max-work must be an integer' merge --config "$tmp/five.json" --max-work 0
# --threads: the grid's points on T threads; the report is the same, bit for
# bit, for any T (only "seconds" may differ)
expect_usage "--threads 0" 'threads must be an integer in \[1, 64\]' merge --config "$tmp/two.json" --threads 0
expect_usage "--threads 65" 'threads must be an integer in \[1, 64\]' merge --config "$tmp/two.json" --threads 65
expect_usage "--threads 1.5" 'threads must be an integer' merge --config "$tmp/two.json" --threads 1.5
if expect_ok "merge --threads 1" merge --config "$DATA/mnist_merge.json" --resolution 3 --json --threads 1; then
  cp "$OUT" "$tmp/t1.json"
  if expect_ok "merge --threads 3" merge --config "$DATA/mnist_merge.json" --resolution 3 --json --threads 3; then
    cp "$OUT" "$tmp/t3.json"
    pycheck "--threads 3 gives --threads 1's report" "$tmp/t3.json" '
a = json.load(open(sys.argv[1].replace("t3.json", "t1.json")))
a.pop("seconds"); d.pop("seconds")
assert a == d
'
  fi
fi
cfg "{\"delta\": 1e-5, \"runs\": [$R], \"resolution\": 3, \"weights_grid\": 3}"
expect_usage "resolution and weights_grid" 'weights_grid: the former name of resolution' merge --config "$tmp/bad.json" --epsilon 1
for key in resolution weights_grid; do
  cfg "{\"delta\": 1e-5, \"runs\": [$R, $R], \"$key\": 3}"
  expect_ok "config $key = 3" merge --config "$tmp/bad.json" --epsilon 1 --json \
    && pycheck "config $key = 3: a grid of 4 points" "$OUT" 'assert d["resolution"] == 3 and len(d["grid"]) == 4'
done
cfg "{\"runs\": [$R]}"
expect_usage "missing delta" 'delta: missing key' merge --config "$tmp/bad.json" --epsilon 1
cfg "{\"delta\": 1e-5}"
expect_usage "missing runs" 'runs: missing key' merge --config "$tmp/bad.json" --epsilon 1
cfg "{\"delta\": 1e-5, \"runs\": [{\"q\": 1.5, \"sigma\": 1, \"clip\": 1, \"lr\": 0.1, \"steps\": 10}]}"
expect_usage "q = 1.5" 'runs\[0\]\.q: must be in \(0, 1\]' merge --config "$tmp/bad.json" --epsilon 1
cfg "{\"delta\": 1e-5, \"runs\": [{\"q\": 0.5, \"sigma\": 1, \"clip\": 1, \"lr\": 0.1, \"steps\": 0}]}"
expect_usage "steps = 0" 'runs\[0\]\.steps' merge --config "$tmp/bad.json" --epsilon 1
cfg "{\"delta\": 1e-5, \"runs\": [{\"q\": 0.5, \"sigma\": 1, \"clip\": 1, \"lr\": 0.1, \"steps\": 2.5}]}"
expect_usage "steps = 2.5" 'runs\[0\]\.steps: expected an integer' merge --config "$tmp/bad.json" --epsilon 1
cfg "{\"delta\": 1e-5, \"runs\": [{\"q\": 0.5, \"sigma\": -1, \"clip\": 1, \"lr\": 0.1, \"steps\": 1}]}"
expect_usage "sigma < 0" 'runs\[0\]\.sigma: must be > 0' merge --config "$tmp/bad.json" --epsilon 1
cfg "{\"delta\": 1, \"runs\": [$R]}"
expect_usage "delta = 1" 'delta: must be in \[1e-100, 1\)' merge --config "$tmp/bad.json" --epsilon 1
cfg "{\"delta\": 1e-5, \"runs\": []}"
expect_usage "empty runs" 'runs: empty' merge --config "$tmp/bad.json" --epsilon 1
cfg "{\"delta\": 1e-5, \"runs\": [$R, $R, $R, $R, $R, $R]}"
expect_usage "too many runs" 'runs: 6 runs, at most 5' merge --config "$tmp/bad.json" --epsilon 1
cfg "{\"delta\": 1e-5, \"runs\": {\"q\": 1}}"
expect_usage "runs not an array" 'runs: expected an array' merge --config "$tmp/bad.json" --epsilon 1
cfg "{\"delta\": 1e-5, \"runs\": [3]}"
expect_usage "run not an object" 'runs\[0\]: expected an object' merge --config "$tmp/bad.json" --epsilon 1
cfg "[1, 2]"
expect_usage "top level not an object" 'expected an object' merge --config "$tmp/bad.json" --epsilon 1
cfg "{\"delta\": 1e-5, \"runs\": [$R"
expect_usage "not JSON" 'not valid JSON' merge --config "$tmp/bad.json" --epsilon 1
cfg ""
expect_usage "empty file" 'not valid JSON' merge --config "$tmp/bad.json" --epsilon 1
cfg "{\"delta\": 1e-5, \"delta\": 1e-6, \"runs\": [$R]}"
expect_usage "duplicate key" 'not valid JSON.*duplicate' merge --config "$tmp/bad.json" --epsilon 1
expect_usage "missing file" 'cannot open config file' merge --config "$tmp/does-not-exist.json" --epsilon 1

# --- bad command lines ------------------------------------------------------
cfg "{\"delta\": 1e-5, \"runs\": [$R]}"
expect_usage "no --config" 'missing --config' merge --epsilon 1
expect_usage "no target epsilon" 'no target epsilon' merge --config "$tmp/bad.json"
expect_usage "--json and --csv" 'exclusive' merge --config "$tmp/bad.json" --epsilon 1 --json --csv
expect_usage "unknown option" "unknown option '--frobnicate'" merge --config "$tmp/bad.json" --frobnicate
expect_usage "bad --epsilon" '--epsilon: expected a finite number' merge --config "$tmp/bad.json" --epsilon abc
expect_usage "bad --delta" '--delta must be in' merge --config "$tmp/bad.json" --epsilon 1 --delta 2
expect_usage "bad --resolution" '--resolution must be an integer' merge --config "$tmp/bad.json" --epsilon 1 --resolution 0
expect_usage "bad --accuracy" '--accuracy must be in' merge --config "$tmp/bad.json" --epsilon 1 --accuracy 0
expect_usage "option without value" '--epsilon needs a value' merge --config "$tmp/bad.json" --epsilon

# N = 1: a single point, the run itself
expect_ok "N = 1" merge --config "$tmp/bad.json" --epsilon 1 --json \
  && pycheck "N = 1 JSON" "$OUT" 'assert len(d["grid"]) == 1 and d["grid"][0]["weights"] == [1]'

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
