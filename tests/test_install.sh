#!/bin/bash
# The installed pldkit: `meson install` into a scratch DESTDIR puts the CLI,
# the library, the headers, the pkg-config file and the man page in place;
# the installed CLI runs against the installed library and gives the
# Gaussian closed form; the man page renders; `make install` and `make
# uninstall` run meson install with PREFIX and DESTDIR.  Also the
# documentation's own promises: a README under 350 lines, and no reference
# to files outside the repository.
#
# usage: test_install.sh BUILD_DIR SOURCE_DIR
set -u
BUILD=${1:?usage: test_install.sh BUILD_DIR SOURCE_DIR}
SRC=${2:?usage: test_install.sh BUILD_DIR SOURCE_DIR}
export LC_ALL=C
pass=0
fail=0
tmp=$(mktemp -d)
log=$BUILD/meson-logs/install-log.txt
# meson install rewrites the install log that `make uninstall` reads: keep
# the user's.
[ -f "$log" ] && cp "$log" "$tmp/install-log.saved"
cleanup() {
  if [ -f "$tmp/install-log.saved" ]; then cp "$tmp/install-log.saved" "$log"; else rm -f "$log"; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

root=$tmp/root
if meson install -C "$BUILD" --no-rebuild --destdir "$root" >"$tmp/install.out" 2>&1; then ok; else
  bad "meson install failed: $(tail -3 "$tmp/install.out")"; fi
bin=$(find "$root" -path '*/bin/pldkit' -type f | head -1)
man=$(find "$root" -path '*/man1/pldkit.1' -type f | head -1)
lib=$(find "$root" -name 'libpldkit.so.0' | head -1)
missing=""
for f in bin man lib; do [ -n "${!f}" ] || missing="$missing $f"; done
for f in pldkit.h accountant.h version.h; do
  [ -n "$(find "$root" -path "*/include/pldkit/$f")" ] || missing="$missing $f"
done
[ -n "$(find "$root" -name pldkit.pc)" ] || missing="$missing pldkit.pc"
if [ -z "$missing" ]; then ok; else bad "not installed:$missing"; fi

# The installed CLI: the Gaussian closed form, eps(1e-5) at mu = 1, against
# an independent bisection on delta(eps) = Phi(-eps + 1/2) - e^eps Phi(-eps - 1/2)
# (math.erfc in double precision: the bracket must hold it to 1e-9).
if [ -n "$bin" ]; then
  out=$(LD_LIBRARY_PATH=$(dirname "$lib") "$bin" epsilon --delta 1e-5 --json gaussian:sigma=1 2>"$tmp/err")
  rc=$?
  if [ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && printf '%s' "$out" | python3 -c '
import json, math, sys
j = json.load(sys.stdin)
Phi = lambda x: 0.5 * math.erfc(-x / math.sqrt(2))
d = lambda e: Phi(-e + 0.5) - math.exp(e) * Phi(-e - 0.5)
lo, hi = 0.0, 20.0
for _ in range(200):
    m = (lo + hi) / 2
    lo, hi = (m, hi) if d(m) > 1e-5 else (lo, m)
up, low = float(j["epsilon_upper"]), float(j["epsilon_lower"])
sys.exit(0 if low <= hi * (1 + 1e-9) and up >= lo * (1 - 1e-9) and up <= lo * (1 + 1e-6) and j["warnings"] == [] else 1)
'; then ok; else bad "installed pldkit: rc $rc, '$out' $(cat "$tmp/err")"; fi
  if [ "$(LD_LIBRARY_PATH=$(dirname "$lib") "$bin" --version)" = "$("$BUILD/pldkit" --version)" ]; then ok; else bad "installed --version differs"; fi
fi

# The man page renders without warnings and documents the exit statuses.
if [ -n "$man" ]; then
  if command -v groff >/dev/null; then
    groff -man -Tutf8 -P-cbou -ww "$man" >"$tmp/man.txt" 2>"$tmp/man.err"
    if [ ! -s "$tmp/man.err" ] && grep -q "EXIT STATUS" "$tmp/man.txt" &&
       grep -q "bad input" "$tmp/man.txt" && grep -q "pldkit events" "$tmp/man.txt"; then ok; else
      bad "man page: $(head -3 "$tmp/man.err")"; fi
  elif command -v man >/dev/null; then
    if man -l "$man" 2>/dev/null | grep -q "EXIT STATUS"; then ok; else bad "man -l does not render"; fi
  else
    echo "skip: neither groff nor man"
  fi
fi

# make install / uninstall: the recipes (a dry run; the real run would
# reconfigure the build directory under the running tests).
if command -v make >/dev/null; then
  n=$(make -s -n -C "$SRC" install uninstall DESTDIR=/tmp/pldkit-x PREFIX=/usr 2>/dev/null)
  if printf '%s' "$n" | grep -q -- '--prefix=/usr' && printf '%s' "$n" | grep -q 'DESTDIR="/tmp/pldkit-x" meson install' &&
     printf '%s' "$n" | grep -q 'ldconfig' && printf '%s' "$n" | grep -q 'install-log.txt'; then ok; else
    bad "make -n install uninstall: '$n'"; fi
fi

# The documentation: a short README, and everything it cites in the
# repository.
lines=$(wc -l <"$SRC/README.md")
if [ "$lines" -lt 350 ]; then ok; else bad "README.md has $lines lines (want < 350)"; fi
refs=$(cd "$SRC" && grep -rnE 'shared/papers|ERRATA\.md|/work/' README.md docs include src pld rdp tests bench examples python 2>/dev/null |
  grep -v '^tests/test_install.sh:')
if [ -z "$refs" ]; then ok; else bad "references outside the repository: $(printf '%s' "$refs" | head -5)"; fi
# Every relative link of the README and docs/ points at a file that exists.
broken=""
for md in "$SRC/README.md" "$SRC"/docs/*.md "$SRC"/docs/papers/*.md; do
  [ -f "$md" ] || continue
  for l in $(grep -oE '\]\([A-Za-z0-9_./-]+(#[^)]*)?\)' "$md" | sed -E 's/^\]\(//; s/\)$//; s/#.*//'); do
    [ -e "$(dirname "$md")/$l" ] || broken="$broken ${md#"$SRC"/}:$l"
  done
done
if [ -z "$broken" ]; then ok; else bad "broken links:$broken"; fi

echo "test_install: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
