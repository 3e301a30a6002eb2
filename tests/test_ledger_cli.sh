#!/usr/bin/env bash
# Ledgers through the CLI (issue 13): concurrent updates lose nothing, files
# are replaced safely, and the loader refuses hostile files before reading.
#
# usage: tests/test_ledger_cli.sh PATH/TO/pldkit
set -u

BIN=${1:?usage: test_ledger_cli.sh PATH/TO/pldkit}
. "$(dirname "$0")/cli_harness.sh"

# expect_refused DESCRIPTION WORD ARGS...: exit 2, one line on stderr that
# contains WORD, nothing on stdout.
expect_refused() {
  local what=$1 word=$2
  shift 2
  run "$@"
  if [ "$rc" -ne 2 ] || [ -s "$OUT" ] || [ "$(err_lines)" -ne 1 ] ||
     ! grep -q -- "$word" "$ERR"; then
    bad "$what: exit $rc (want 2, one line with '$word'): pldkit $*"
    return 1
  fi
  ok
}

# Randomized response with epsilon = 1 on the grid 1 is exact (its losses
# are +-1), so a ledger of n updates must answer exactly as count=n and
# visibly differently from count=n-1: a lost update cannot hide.
RR=randomized-response:epsilon=1,k=2
L=$tmp/ledger.pld
N=4 M=5
# the ledger starts as a plain save (its first history record); the updates
# come through every documented spelling, the self-reference with its keys
# in either order included (issue 32: the reordered one was a plain,
# unlocked save that lost updates and the history)
"$BIN" save --discretization 1 --out "$L" "$RR" >/dev/null
for p in $(seq 1 $N); do
  (
    for u in $(seq 1 $M); do
      case $((u % 3)) in
        0) "$BIN" save --out "$L" "pld:file=$L" "$RR" >/dev/null 2>>"$tmp/perr" ||
             echo "save failed" >>"$tmp/perr" ;;
        1) "$BIN" save --out "$L" "pld:count=1,file=$L" "$RR" >/dev/null 2>>"$tmp/perr" ||
             echo "save failed" >>"$tmp/perr" ;;
        *) "$BIN" ledger add "$L" "$RR" >/dev/null 2>>"$tmp/perr" ||
             echo "add failed" >>"$tmp/perr" ;;
      esac
    done
  ) &
done
wait
if grep -v "waiting for the lock" "$tmp/perr" 2>/dev/null | grep -q .; then
  bad "concurrent updates: unexpected errors: $(head -3 "$tmp/perr")"
else ok; fi
total=$((N * M + 1))
expect_ok "ledger after $total concurrent updates" epsilon --delta 1e-5 "pld:file=$L" &&
  sed 's/, [0-9.e+-]* s$//; s/ [0-9.e+-]* s;/;/' "$OUT" | cut -d';' -f1 >"$tmp/got"
expect_ok "one run of $total" epsilon --delta 1e-5 --discretization 1 "$RR,count=$total" &&
  cut -d';' -f1 "$OUT" >"$tmp/want"
expect_ok "one run of $((total - 1))" epsilon --delta 1e-5 --discretization 1 "$RR,count=$((total - 1))" &&
  cut -d';' -f1 "$OUT" >"$tmp/less"
if cmp -s "$tmp/got" "$tmp/want" && ! cmp -s "$tmp/got" "$tmp/less"; then ok; else
  bad "ledger of $total updates: $(cat "$tmp/got") vs $(cat "$tmp/want") (one lost: $(cat "$tmp/less"))"
fi
expect_ok "ledger show" ledger show "$L"
if [ "$(grep -c "Z $RR\$" "$OUT")" -eq "$total" ] && grep -q "; $total updates recorded" "$OUT"; then ok; else
  bad "ledger show: want $total history records: $(head -3 "$OUT")"; fi
# ledger show --json: the same history, machine-readable
expect_ok "ledger show --json" ledger show "$L" --json
if python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
h = j["history"]
assert j["updates"] == int(sys.argv[2]) == len(h), (j["updates"], len(h))
assert all(r["text"] == sys.argv[3] and r["time"] > 1.7e9 for r in h)
assert j["epsilon_lower"] <= j["epsilon_upper"]
' "$OUT" "$total" "$RR"; then ok; else bad "ledger show --json: $(head -c 300 "$OUT")"; fi
# the self-reference with its keys reordered composes the ledger once,
# through ledger add as through save
cp "$L" "$tmp/once.pld"
expect_ok "ledger add with a reordered self-reference" ledger add "$tmp/once.pld" "pld:count=1,file=$tmp/once.pld" "$RR"
expect_ok "its epsilon" epsilon --delta 1e-5 "pld:file=$tmp/once.pld" &&
  cut -d';' -f1 "$OUT" >"$tmp/got"
expect_ok "one run of $((total + 1))" epsilon --delta 1e-5 --discretization 1 "$RR,count=$((total + 1))" &&
  cut -d';' -f1 "$OUT" >"$tmp/want"
if cmp -s "$tmp/got" "$tmp/want"; then ok; else
  bad "ledger add L pld:count=1,file=L: $(cat "$tmp/got") vs $(cat "$tmp/want")"; fi
# a self-reference anywhere else (count, '+' list, member) is refused
expect_refused "self reference in a list" "ledger add" save --out "$L" "gaussian:sigma=3+pld:file=$L" "$RR"
expect_refused "self reference with count first" "ledger add" save --out "$L" "pld:count=2,file=$L" "$RR"
# a mistyped ledger is no new ledger: refused, nothing created; --create
expect_refused "ledger add to a missing file" "--create" ledger add "$tmp/typo.pld" "$RR"
if [ ! -e "$tmp/typo.pld" ] && [ ! -e "$tmp/typo.pld.lock" ]; then ok; else
  bad "ledger add to a missing file created $(ls "$tmp"/typo*)"; fi
expect_ok "ledger add --create" ledger add "$tmp/new.pld" --create --discretization 1 "$RR"
expect_ok "the new ledger" ledger show "$tmp/new.pld"
if grep -q "1 update recorded" "$OUT"; then ok; else bad "ledger add --create: $(cat "$OUT")"; fi
expect_refused "--create with save" "--create" save --out "$tmp/s.pld" --create "$RR"
if ls -a "$tmp" | grep -q '\.tmp$'; then bad "temporary files left: $(ls -a "$tmp")"; else ok; fi

# --discretization other than the ledger's grid
expect_refused "ledger on another grid" "grid" ledger add "$L" --discretization 0.5 "$RR"
# a loaded ledger with extra keys in the self-reference
expect_refused "self reference with count" "ledger add" save --out "$L" "pld:file=$L,count=2" "$RR"

# the mode is kept
chmod 640 "$L"
"$BIN" ledger add "$L" "$RR" >/dev/null
if [ "$(stat -c %a "$L")" = 640 ]; then ok; else bad "mode not kept: $(stat -c %a "$L")"; fi
"$BIN" save --out "$L" "$RR" >/dev/null
if [ "$(stat -c %a "$L")" = 640 ]; then ok; else bad "save: mode not kept: $(stat -c %a "$L")"; fi

# a link planted at the old fixed temporary name is left alone
echo precious >"$tmp/victim"
ln -s "$tmp/victim" "$L.tmp"
"$BIN" save --out "$L" "$RR" >/dev/null
"$BIN" ledger add "$L" "$RR" >/dev/null
if [ "$(cat "$tmp/victim")" = precious ] && [ -f "$L" ] && [ ! -L "$L" ]; then ok; else
  bad "planted link at $L.tmp was followed"; fi

# a symlinked ledger is written through: the link stays, its target grows
"$BIN" save --out "$tmp/real.pld" "$RR" >/dev/null
ln -s "$tmp/real.pld" "$tmp/link.pld"
"$BIN" ledger add "$tmp/link.pld" "$RR" >/dev/null
"$BIN" save --out "$tmp/link.pld" "pld:file=$tmp/link.pld" "$RR" >/dev/null
expect_ok "through the link" epsilon --delta 1e-5 "pld:file=$tmp/real.pld" &&
  cut -d';' -f1 "$OUT" >"$tmp/got"
expect_ok "three runs" epsilon --delta 1e-5 --discretization 1 "$RR,count=3" &&
  cut -d';' -f1 "$OUT" >"$tmp/want"
if [ -L "$tmp/link.pld" ] && cmp -s "$tmp/got" "$tmp/want"; then ok; else
  bad "symlinked ledger not written through"; fi
ln -s "$tmp/nowhere.pld" "$tmp/dangling.pld"
expect_refused "dangling link" "dangling.pld" ledger add "$tmp/dangling.pld" "$RR"

# anything but a regular file is refused, never replaced
expect_refused "save to /dev/null" "not a regular file" save --out /dev/null "$RR"
expect_refused "ledger /dev/null" "not a regular file" ledger add /dev/null "$RR"
mkdir "$tmp/dir.pld"
expect_refused "save to a directory" "not a regular file" save --out "$tmp/dir.pld" "$RR"
if [ -c /dev/null ]; then ok; else bad "/dev/null was replaced"; fi
# errors about the temporary file name it
expect_refused "no such directory" ".x.pld." save --out "$tmp/no/such/x.pld" "$RR"

# a 3 GiB sparse file is refused at once, without reading it
truncate -s 3G "$tmp/sparse.pld"
t0=$(date +%s%N)
expect_refused "3 GiB sparse file" "refused" epsilon --delta 1e-5 "pld:file=$tmp/sparse.pld"
t1=$(date +%s%N)
if [ $(((t1 - t0) / 1000000)) -lt 1000 ]; then ok; else bad "sparse file took $(((t1 - t0) / 1000000)) ms"; fi
# a genuine header declaring a huge array, the file extended to match
python3 - "$tmp/huge.pld" <<'PY'
import struct, sys
n = (3 << 30) // 8 - 64
h = b"PLDKITv\0" + struct.pack("<IIdQ", 2, 1, 1.0, 0)
h += struct.pack("<qQddd", 0, n, 0.0, 0.0, 0.0)
one = struct.pack("<qQddd", 0, 1, 0.0, 0.0, 0.0) + struct.pack("<d", 1.0)
with open(sys.argv[1], "wb") as f:
    f.write(h)
    f.seek(len(h) + 8 * n)  # the masses: a hole
    f.write(one * 3 + struct.pack("<QQ", 0, 0) + b"\0" * 8)
PY
t0=$(date +%s%N)
expect_refused "huge declared array over --max-grid" "max-grid" epsilon --delta 1e-5 "pld:file=$tmp/huge.pld"
t1=$(date +%s%N)
if [ $(((t1 - t0) / 1000000)) -lt 1000 ]; then ok; else bad "huge file took $(((t1 - t0) / 1000000)) ms"; fi

# save and load agree at extreme counts: round trip, or a clean refusal
PG=poisson-gaussian:q=0.01,sigma=1
for c in 4194304 4294967296 1099511627776; do
  rm -f "$tmp/x.pld"
  run save --out "$tmp/x.pld" --discretization 0.02 "$PG,count=$c"
  if [ "$rc" -eq 0 ]; then
    if "$BIN" epsilon --delta 1e-5 "pld:file=$tmp/x.pld" >/dev/null 2>"$ERR"; then ok; else
      bad "count=$c: saved, but load refuses: $(cat "$ERR")"; fi
  elif [ "$rc" -eq 1 ] && [ "$(err_lines)" -eq 1 ] && [ ! -e "$tmp/x.pld" ] &&
       [ ! -s "$OUT" ]; then ok
  else bad "count=$c: save exit $rc, file $(ls "$tmp/x.pld" 2>&1)"; fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
