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
expect_refused "huge declared array over --max-grid" "max_grid" epsilon --delta 1e-5 "pld:file=$tmp/huge.pld"
t1=$(date +%s%N)
if [ $(((t1 - t0) / 1000000)) -lt 1000 ]; then ok; else bad "huge file took $(((t1 - t0) / 1000000)) ms"; fi

# issue 32, item 2: the directory sync fails after the rename (an
# LD_PRELOAD shim): the update is booked, and said so, with exit 4
if [ -n "${PLDKIT_FAIL_DIRSYNC:-}" ] && [ -f "$PLDKIT_FAIL_DIRSYNC" ]; then
  "$BIN" save --discretization 1 --out "$tmp/dur.pld" "$RR" >/dev/null
  LD_PRELOAD=$PLDKIT_FAIL_DIRSYNC "$BIN" ledger add "$tmp/dur.pld" "$RR" >"$OUT" 2>"$ERR"
  rc=$?
  if [ "$rc" -eq 4 ] && grep -q "booked, durability not confirmed" "$ERR" &&
     grep -q "^saved" "$OUT"; then ok; else
    bad "failed directory sync: exit $rc (want 4): $(cat "$ERR")"; fi
  expect_ok "the booked update is there" ledger show "$tmp/dur.pld"
  if grep -q "2 updates recorded" "$OUT"; then ok; else bad "durability: $(head -1 "$OUT")"; fi
  LD_PRELOAD=$PLDKIT_FAIL_DIRSYNC "$BIN" save --out "$tmp/dur2.pld" "$RR" >/dev/null 2>"$ERR"
  rc=$?
  if [ "$rc" -eq 4 ] && [ -f "$tmp/dur2.pld" ] && grep -q "durability not confirmed" "$ERR"; then ok; else
    bad "save, failed directory sync: exit $rc: $(cat "$ERR")"; fi
else
  bad "PLDKIT_FAIL_DIRSYNC (the test shim) not set: the durability test did not run"
fi

# item 3: a held lock is announced, and --lock-timeout gives up (exit 3)
"$BIN" save --discretization 1 --out "$tmp/busy.pld" "$RR" >/dev/null
"$BIN" ledger add "$tmp/busy.pld" "$RR" >/dev/null  # makes busy.pld.lock
flock "$tmp/busy.pld.lock" sleep 3 &
holder=$!
sleep 0.3
t0=$(date +%s%N)
run ledger add "$tmp/busy.pld" --lock-timeout 0.5 "$RR"
t1=$(date +%s%N)
if [ "$rc" -eq 3 ] && grep -q "waiting for the lock" "$ERR" &&
   grep -q "gave up waiting" "$ERR" && [ ! -s "$OUT" ] &&
   [ $(((t1 - t0) / 1000000)) -lt 2500 ]; then ok; else
  bad "lock timeout: exit $rc in $(((t1 - t0) / 1000000)) ms: $(cat "$ERR")"; fi
run ledger add "$tmp/busy.pld" "$RR"   # waits for the holder, then books
if [ "$rc" -eq 0 ] && grep -q "waiting for the lock" "$ERR"; then ok; else
  bad "waiting for a lock: exit $rc: $(cat "$ERR")"; fi
wait "$holder"
expect_ok "after the wait" ledger show "$tmp/busy.pld"
if grep -q "3 updates recorded" "$OUT"; then ok; else bad "lock wait: $(head -1 "$OUT")"; fi
expect_refused "negative --lock-timeout" "lock-timeout" ledger add "$tmp/busy.pld" --lock-timeout -1 "$RR"
# only those who may write the ledger may open its lock: a reader cannot
# hold it (checked as another user where this test runs as root)
if [ "$(stat -c %a "$tmp/busy.pld.lock")" = 600 ]; then ok; else
  bad "lock file of a 0644 ledger has mode $(stat -c %a "$tmp/busy.pld.lock") (want 600)"; fi
if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null; then
  chmod 755 "$tmp"
  runuser -u nobody -- flock -n "$tmp/busy.pld.lock" sleep 5 2>/dev/null &
  reader=$!
  sleep 0.3
  run ledger add "$tmp/busy.pld" --lock-timeout 1 "$RR"
  if [ "$rc" -eq 0 ] && ! grep -q "waiting" "$ERR"; then ok; else
    bad "a reader blocked the update: exit $rc: $(cat "$ERR")"; fi
  wait "$reader" 2>/dev/null
  chmod 700 "$tmp"
fi

# item 4: a symbolic link another user could have planted is not followed
if [ "$(id -u)" = 0 ]; then
  echo secret >"$tmp/root-only"
  chmod 600 "$tmp/root-only"
  ln -s "$tmp/root-only" "$tmp/planted.pld"
  chown -h nobody "$tmp/planted.pld"
  expect_refused "a link owned by another user" "planted" save --out "$tmp/planted.pld" "$RR"
  mkdir "$tmp/shared"
  chown nobody "$tmp/shared"
  chmod 1777 "$tmp/shared"
  ln -s "$tmp/root-only" "$tmp/shared/mine.pld"
  expect_refused "a link in another user's sticky directory" "symbolic link" save --out "$tmp/shared/mine.pld" "$RR"
  if [ "$(cat "$tmp/root-only")" = secret ]; then ok; else bad "a planted link was written through"; fi
fi

# item 5: declared sizes against caps before anything is read: a 20 KB
# sparse file declaring 4 x 2^25 points, and a 1 GiB history section
python3 - "$tmp/sparse4.pld" "$tmp/hist.pld" <<'PY'
import struct, sys
n = 1 << 25
with open(sys.argv[1], "wb") as f:
    f.write(b"PLDKITv\0" + struct.pack("<IIdQ", 2, 1, 1.0, 0))
    for k in range(4):
        f.write(struct.pack("<qQddd", 0, n, 0.0, 0.0, 0.0))
        f.seek(8 * n, 1)  # the masses: a hole
    f.write(struct.pack("<QQ", 0, 0) + b"\0" * 8)
hist = 1 << 30
with open(sys.argv[2], "wb") as f:
    f.write(b"PLDKITv\0" + struct.pack("<IIdQ", 2, 1, 1.0, 0))
    for k in range(4):
        f.write(struct.pack("<qQddd", 0, 1000, 0.0, 0.0, 0.0) + b"\0" * 8000)
    f.write(struct.pack("<QQ", 1, hist))
    f.seek(hist, 1)
    f.write(b"\0" * 8)
PY
for args in "ledger show $tmp/sparse4.pld" "epsilon --delta 1e-5 pld:file=$tmp/sparse4.pld" \
            "epsilon --delta 1e-5 pld:file=$tmp/hist.pld" "ledger show $tmp/hist.pld"; do
  t0=$(date +%s%N)
  # shellcheck disable=SC2086
  expect_refused "capped load: $args" "refused" $args
  t1=$(date +%s%N)
  if [ $(((t1 - t0) / 1000000)) -lt 1000 ]; then ok; else
    bad "capped load took $(((t1 - t0) / 1000000)) ms: $args"; fi
done
rm -f "$tmp/sparse4.pld" "$tmp/hist.pld"

# item 6: temporaries of dead writers are removed under the lock, a live
# writer's are kept; hard links refused; history shown escaped
sh -c 'echo $$' >"$tmp/deadpid"
dead=$(cat "$tmp/deadpid")
touch "$tmp/.ledger.pld.p$dead.0123456789abcdef.tmp" "$tmp/.ledger.pld.p$$.0123456789abcdef.tmp"
expect_ok "an update cleans" ledger add "$L" "$RR"
if [ ! -e "$tmp/.ledger.pld.p$dead.0123456789abcdef.tmp" ] &&
   [ -e "$tmp/.ledger.pld.p$$.0123456789abcdef.tmp" ]; then ok; else
  bad "stale temporaries: $(ls -a "$tmp" | grep tmp)"; fi
rm -f "$tmp/.ledger.pld.p$$.0123456789abcdef.tmp"
ln "$L" "$tmp/hard.pld"
expect_refused "a hard-linked ledger" "hard links" ledger add "$tmp/hard.pld" "$RR"
rm -f "$tmp/hard.pld"

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
