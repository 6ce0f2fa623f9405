#!/usr/bin/env bash
# Measures the browser-edit, live fan-out and store benchmarks the README quotes on this tree and
# on a previous release, alternating between them in one run so that both see the same machine,
# and prints each figure side by side (the median of the rounds, and their range).
# Usage: scripts/bench-previous.sh [REF [ROUNDS [ONLY]]]   (REF defaults to 3d68fde, the last
# commit before the redesign of issue 14; ROUNDS to 3; ONLY, a word such as Fanout, keeps the
# benchmarks whose line holds it)
set -euo pipefail
cd "$(dirname "$0")/.."
ref=${1:-3d68fde} rounds=${2:-3} only=${3:-}
dir=$(mktemp -d)
trap 'git worktree remove --force "$dir/prev" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
git worktree add --detach "$dir/prev" "$ref" >/dev/null 2>&1
# The benchmarks read the shared listings beside the module (../shared): the previous tree gets
# the same, through a link beside its worktree.
if [ -d ../shared ]; then ln -s "$(cd ../shared && pwd)" "$dir/shared"; fi
# Each benchmark: package, -bench pattern, -benchtime.
benches=(
  "./web/ EditRecompute 300x"
  "./web/ LiveFanout200$ 50x"
  "./store/sqlite/ Edits/github 1000x"
)
for ((r = 1; r <= rounds; r++)); do
  for tree in now prev; do
    src=.
    [ "$tree" = prev ] && src="$dir/prev"
    for b in "${benches[@]}"; do
      case "$b" in *"$only"*) ;; *) continue ;; esac
      set -- $b
      (cd "$src" && go test "$1" -run '^$' -bench "$2" -benchtime "$3" -count 1) 2>/dev/null |
        awk -v tree="$tree" '/^Benchmark/ { for (i = 3; i < NF; i++) if ($(i+1) ~ /^p(50|99)-ms$/) print tree, $1, $(i+1), $i }' >>"$dir/results"
    done
  done
done
# tree name metric value → one line per benchmark and metric: median [min–max] now, then prev.
sort -k2,2 -k3,3 -k1,1 "$dir/results" | awk '
  { key = $2 " " $3; vals[key, $1] = vals[key, $1] " " $4; keys[key] = 1 }
  function summary(s,   n, a, i, j, t) {
    n = split(s, a, " ")
    if (n == 0) return "(did not run)"
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return sprintf("%.2f [%.2f–%.2f]", a[int((n + 1) / 2)], a[1], a[n])
  }
  END {
    for (k in keys) { split(k, p, " "); printf "%-58s %-8s %-22s %-22s\n", p[1], p[2], summary(vals[k, "now"]), summary(vals[k, "prev"]) }
  }' | sort >"$dir/table"
printf "%-58s %-8s %-22s %-22s\n" "benchmark (median [range] of $rounds rounds)" "metric" "this tree" "previous ($ref)"
cat "$dir/table"
