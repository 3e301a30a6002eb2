#!/usr/bin/env python3
"""Short human summary of bench/results/rdp_vs_pld*.csv (make bench)."""
import csv
import statistics
import sys

d = sys.argv[1] if len(sys.argv) > 1 else "bench/results"
rows = list(csv.DictReader(open(f"{d}/rdp_vs_pld.csv")))
sig = list(csv.DictReader(open(f"{d}/rdp_vs_pld_sigma.csv")))
r = [float(x["ratio"]) for x in rows]
print(f"\nRDP vs PLD, Poisson-subsampled Gaussian, delta = 1e-5, {len(rows)} "
      "deployments (rdp_vs_pld.csv):")
print(f"  eps_RDP / eps_PLD_upper: median {statistics.median(r):.3f}, "
      f"min {min(r):.3f}, max {max(r):.3f}")
worst = max(rows, key=lambda x: float(x["ratio"]))
print(f"  largest gap: q={worst['q']} sigma={worst['sigma']} T={worst['T']}: "
      f"RDP {float(worst['eps_rdp']):.4g} vs PLD "
      f"[{float(worst['eps_pld_lower']):.4g}, {float(worst['eps_pld_upper']):.4g}]")
s = [float(x["ratio"]) for x in sig]
print(f"  noise for the same target epsilon (rdp_vs_pld_sigma.csv, {len(sig)} "
      f"targets): sigma_RDP / sigma_PLD median {statistics.median(s):.3f}, "
      f"max {max(s):.3f}")
