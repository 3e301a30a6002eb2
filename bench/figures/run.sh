#!/bin/sh
# make figures: run every figure generator at full size into
# bench/figures/data, then every gnuplot script into bench/figures/*.png.
# usage: bench/figures/run.sh BUILD_DIR
set -e
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/data"
for g in "$build"/bench/fig_*; do
  [ -f "$g" ] && [ -x "$g" ] || continue
  name=$(basename "$g")
  # the RDP-vs-PLD table belongs to make bench (bench/results)
  [ "$name" = fig_rdp_vs_pld ] && continue
  echo "== $name" >&2
  start=$(date +%s)
  "$g" "$here/data"
  echo "   $(( $(date +%s) - start )) s" >&2
done
for s in "$here"/*.gp; do
  [ -f "$s" ] || continue
  echo "== gnuplot $(basename "$s")" >&2
  gnuplot -e "data='$here/data'; out='$here'" "$s"
done
