#!/usr/bin/env bash
# Joins bench/appbench.c runs into one table: one column per run, the cudacl/NVIDIA ratio, and
# whether issue 12's goal for the row is met ("raw+0.5&nv": cudacl <= raw CUDA + 0.5 us and
# <= NVIDIA; "nv": cudacl <= NVIDIA; "nv-higher": cudacl >= NVIDIA, for rates such as TFLOPS).
# Usage: scripts/appbench-table.sh cudacl=LOG nvidia=LOG raw=LOG [label=LOG...]
# (the labels cudacl, nvidia and raw are the ones the ratio and the goals read).
set -euo pipefail
awk '
  BEGIN {
    for (i = 1; i < ARGC; i++) {
      split(ARGV[i], kv, "="); label[i] = kv[1]; file[kv[1]] = kv[2]; ncol = i
      ARGV[i] = kv[2]
    }
  }
  FNR == 1 { col++ }
  $1 == "RESULT" {
    key = $2
    if (!(key in seen)) { seen[key] = 1; order[++nkeys] = key; unit[key] = $4 }
    if ($5 != "-") goal[key] = $5
    v[col, key] = $3; ok[col, key] = $6
  }
  END {
    printf "| %-20s |", "appbench row"
    for (c = 1; c <= ncol; c++) printf " %12s |", label[c]
    printf " %-10s | %-10s | %-4s |\n", "cudacl/NV", "goal", "met"
    printf "|%s|", "----------------------"
    for (c = 1; c <= ncol; c++) printf "%s|", "--------------"
    printf "%s|%s|%s|\n", "------------", "------------", "------"
    for (c = 1; c <= ncol; c++) { if (label[c] == "cudacl") C = c; if (label[c] == "nvidia") N = c; if (label[c] == "raw") R = c }
    for (k = 1; k <= nkeys; k++) {
      key = order[k]
      printf "| %-20s |", key
      for (c = 1; c <= ncol; c++) {
        if ((c, key) in v) printf " %9.3f %-2s |", v[c, key], (ok[c, key] == "ok" ? unit[key] : "!!")
        else printf " %12s |", "-"
      }
      ratio = "-"; met = "-"
      if (C && N && (C, key) in v && (N, key) in v && v[N, key] > 0) ratio = sprintf("%.2f", v[C, key] / v[N, key])
      g = (key in goal) ? goal[key] : "-"
      if (ratio != "-" && ok[C, key] != "ok") g = g " (!!)"
      if (g == "nv" && ratio != "-") met = (v[C, key] <= v[N, key]) ? "yes" : "NO"
      if (g == "nv-higher" && ratio != "-") met = (v[C, key] >= v[N, key]) ? "yes" : "NO"
      if (g == "raw+0.5&nv" && ratio != "-" && R && (R, key) in v) met = (v[C, key] <= v[R, key] + 0.5 && v[C, key] <= v[N, key]) ? "yes" : "NO"
      printf " %-10s | %-10s | %-4s |\n", ratio, g, met
    }
    print "(!! = that run failed its result check)"
  }
' "$@"
