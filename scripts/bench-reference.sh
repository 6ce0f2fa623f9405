#!/usr/bin/env bash
# Times `workbench check` against the reference checker on the benchmark input of
# ../shared/bench/gen.py (1000 tools, 2000 tasks), checks that both print the same bytes, and
# prints the ratio. Usage: scripts/bench-reference.sh [TOOLS TASKS]
set -euo pipefail
cd "$(dirname "$0")/.."
shared=../shared
tools=${1:-1000} tasks=${2:-2000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 "$shared/bench/gen.py" "$tools" "$tasks" "$dir" >/dev/null
go build -o "$dir/workbench" ./cmd/workbench
now() { date +%s.%N; }
# The reference's verdict on an exact tie follows Python's set order (../shared/reference/README.md);
# one hash seed keeps its output from changing between runs.
t0=$(now); PYTHONHASHSEED=0 python3 "$shared/reference/tool_design_check.py" "$dir/listing.json" --tasks "$dir/tasks.json" >"$dir/ref.out" || true; t1=$(now)
best=
for _ in 1 2 3 4 5; do
  s=$(now); "$dir/workbench" check "$dir/listing.json" --tasks "$dir/tasks.json" --rules reference >"$dir/wb.out" || true; e=$(now)
  t=$(awk "BEGIN{print $e - $s}")
  if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
done
cmp -s "$dir/ref.out" "$dir/wb.out" && same="identical output" || same="OUTPUT DIFFERS"
ref=$(awk "BEGIN{print $t1 - $t0}")
printf 'reference %.2f s, workbench %.3f s (best of 5): %.0fx faster, %s\n' "$ref" "$best" "$(awk "BEGIN{print $ref / $best}")" "$same"
