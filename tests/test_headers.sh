#!/bin/sh
# Every public header compiles on its own, as strict C99, C11 and C++
# (issue: a header that needs C11 or another header first breaks users).
# usage: test_headers.sh SOURCE_ROOT BUILD_ROOT
src=$1 build=$2
cc=${CC:-cc}
cxx=${CXX:-c++}
fail=0
command -v "$cxx" >/dev/null 2>&1 || { echo "no C++ compiler ($cxx)"; exit 1; }
for h in "$src"/include/pldkit/*.h; do
  name=pldkit/$(basename "$h")
  for std in c99 c11; do
    if ! printf '#include <%s>\n' "$name" | "$cc" -std=$std -pedantic -Wall \
        -Wextra -Werror -I"$src/include" -I"$build/include" -x c -c - \
        -o /dev/null; then
      echo "FAIL: $name as $std"; fail=1
    fi
  done
  if ! printf '#include <%s>\n' "$name" | "$cxx" -std=c++11 -pedantic -Wall \
      -Wextra -Werror -I"$src/include" -I"$build/include" -x c++ -c - \
      -o /dev/null; then
    echo "FAIL: $name as C++11"; fail=1
  fi
done
[ $fail = 0 ] && echo "all public headers compile alone as C99, C11 and C++11"
exit $fail
