#!/bin/bash
# The installed pldkit: `meson install` into a scratch DESTDIR puts the CLI,
# the library, the headers, the pkg-config file and the man page in place;
# the installed CLI runs against the installed library and gives the
# Gaussian closed form; the man page renders; `make install` and `make
# uninstall` run meson install with PREFIX and DESTDIR, `make install`
# builds nothing it does not install, `make python-install` uses Debian's
# python and the installed package finds the installed library (or says it
# is missing).  Also the
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
    # complete: every command of the main help and every option the
    # EVENT-taking commands' helps list (merge and mspafl have their own
    # --help pages, which the man page points to)
    missing=""
    for w in epsilon delta curve calibrate rdp-curve save merge mspafl demo events help "ledger add" "ledger show"; do
      grep -qF -- "pldkit $w" "$tmp/man.txt" || missing="$missing '$w'"
    done
    for c in epsilon delta curve calibrate save rdp-curve demo; do
      for o in $("$BUILD/pldkit" "$c" --help 2>/dev/null | grep -oE '^ +--[a-z][a-z-]*' | tr -d ' '); do
        grep -qF -- "$o" "$tmp/man.txt" || missing="$missing $o($c)"
      done
    done
    if [ -z "$missing" ]; then ok; else bad "the man page lacks:$(printf '%s\n' $missing | sort -u | tr '\n' ' ')"; fi
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

# make install builds only what it installs: a fresh build directory gets
# the library and the CLI, no test, bench or fuzz-replayer object, and the
# staged files are all there.
if command -v make >/dev/null; then
  if make -s -C "$SRC" install BUILD="$tmp/fresh" DESTDIR="$tmp/stage" PREFIX=/usr >"$tmp/make-install.out" 2>&1; then
    built=$(find "$tmp/fresh/tests" "$tmp/fresh/bench" "$tmp/fresh/examples" -name '*.o' 2>/dev/null | head -3)
    if [ -z "$built" ] && [ -x "$tmp/stage/usr/bin/pldkit" ] &&
       [ -n "$(find "$tmp/stage" -name 'libpldkit.so.0')" ] &&
       [ -f "$tmp/stage/usr/share/man/man1/pldkit.1" ]; then ok; else
      bad "make install built more than it installs ($built) or installed too little"; fi
  else
    bad "make install into a fresh build directory: $(tail -3 "$tmp/make-install.out")"
  fi
fi

# make python-install: Debian's /usr/bin/python3 (not the first python3 on
# PATH) with Debian's pip, setuptools and wheel, offline; the installed
# package computes with the installed library, and without one it says what
# is missing.
if command -v make >/dev/null; then
  n=$(env -u VIRTUAL_ENV make -s -n -C "$SRC" python-install 2>/dev/null)
  if printf '%s' "$n" | grep -q '^/usr/bin/python3 -m pip install --no-build-isolation --no-index --break-system-packages ./python' &&
     printf '%s' "$n" | grep -q 'python3-wheel'; then ok; else bad "make -n python-install: '$n'"; fi
fi
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -m pip --version >/dev/null 2>&1 &&
   /usr/bin/python3 -c 'import setuptools, wheel' 2>/dev/null; then
  if env -u VIRTUAL_ENV make -s -C "$SRC" python-install PIP_FLAGS="--no-build-isolation --no-index --root $tmp/py" >"$tmp/pyinst.out" 2>&1; then
    pkg=$(find "$tmp/py" -path '*/pldkit/__init__.py' | head -1)
    site=$(dirname "$(dirname "$pkg")")
    stagedlib=$(find "$tmp/stage" -name 'libpldkit.so.0' | head -1)
    if [ -n "$pkg" ] && [ -n "$stagedlib" ] && (cd "$tmp" && PYTHONPATH=$site PLDKIT_LIBRARY=$stagedlib /usr/bin/python3 -c '
import math, sys, pldkit
assert pldkit.__file__.startswith(sys.argv[1]), pldkit.__file__
r = pldkit.Accountant().compose(pldkit.Gaussian(1.0)).delta(1.0)
Phi = lambda x: 0.5 * math.erfc(-x / math.sqrt(2))
exact = Phi(-0.5) - math.e * Phi(-1.5)
sys.exit(0 if r.lower <= exact * (1 + 1e-9) and r.upper >= exact * (1 - 1e-9) else 1)
' "$site"); then ok; else bad "the installed package does not compute with the installed library"; fi
    # without the library: a clear ImportError (only where none is installed)
    if [ -n "$site" ] && ! /sbin/ldconfig -p 2>/dev/null | grep -q libpldkit &&
       [ -z "$(ls /usr/local/lib/*/libpldkit.so.0 /usr/local/lib/libpldkit.so.0 /usr/lib/*/libpldkit.so.0 2>/dev/null)" ]; then
      msg=$(cd "$tmp" && env -u PLDKIT_LIBRARY -u LD_LIBRARY_PATH -u LIBRARY_PATH PYTHONPATH=$site /usr/bin/python3 -c 'import pldkit' 2>&1)
      if printf '%s' "$msg" | grep -q 'LibraryNotFound: cannot load libpldkit: the pldkit Python package needs the C library libpldkit, which is not installed or not found' &&
         printf '%s' "$msg" | grep -q 'sudo make install'; then ok; else bad "import without the library: '$msg'"; fi
    else
      echo "skip: a libpldkit is installed on this system (the not-found message is not checked)"
    fi
  else
    bad "make python-install: $(tail -3 "$tmp/pyinst.out")"
  fi
else
  echo "skip: /usr/bin/python3 with pip, setuptools and wheel not available"
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

# Every source path the README and docs/ cite in backquotes exists
# (`pldkit/x.h` under include/, the rest from the top of the checkout).
missing=""
for md in "$SRC/README.md" "$SRC"/docs/*.md "$SRC"/docs/papers/*.md "$SRC/python/README.md"; do
  [ -f "$md" ] || continue
  for p in $(grep -oE '`(include|src|pld|rdp|papers|catalogue|cli|python|tests|bench|tools|docs|examples|pldkit)/[A-Za-z0-9_./-]+\.(c|h|py|sh|gp|md|1|txt|csv)`' "$md" | tr -d '`' | sort -u); do
    case $p in *NAME*) continue ;; pldkit/*) q=$SRC/include/$p ;; *) q=$SRC/$p ;; esac
    [ -e "$q" ] || missing="$missing ${md#"$SRC"/}:$p"
  done
done
if [ -z "$missing" ]; then ok; else bad "source paths cited but absent:$missing"; fi
if grep -q 'src/cli' "$SRC/README.md"; then bad "README names src/cli/ (the CLI is in cli/)"; else ok; fi

echo "test_install: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
