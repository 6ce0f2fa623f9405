#!/usr/bin/env bash
# The GitHub Action's steps (action.yml runs each as `action.sh STEP`), kept here so that they
# can be run and tested outside GitHub (cmd/workbench/action_test.go runs them).
#
#   build    go build the workbench from this checkout; output path=BINARY
#   check    workbench check on INPUT_LISTING: annotations to the log, SARIF to INPUT_SARIF if
#            set, the Markdown report to the job summary; output exit-code
#   cost     with INPUT_BASELINE, the cost gate against it: a file, or a git ref at which the
#            listing's own path is read; outputs exit-code (empty: no baseline, skipped) and
#            report, the Markdown table's file (for a pull request comment)
#   verdict  the summary table of both, and exit 1 if either failed
#
# Inputs come in the environment (INPUT_*), never in the script's text: a value cannot become
# shell code. GITHUB_OUTPUT and GITHUB_STEP_SUMMARY are files, as on a runner.
set -euo pipefail

# die ends a step that could not run: exit 2, and for check and cost an exit-code output of 2,
# which the verdict reports.
die() {
	printf 'workbench action: %s\n' "$*" >&2
	case "${STEP:-}" in check | cost) [ -z "${GITHUB_OUTPUT:-}" ] || printf 'exit-code=2\n' >>"$GITHUB_OUTPUT" ;; esac
	exit 2
}
# out writes a step output; a value with a line break would write a second output of its own.
out() {
	case "$2" in *$'\n'* | *$'\r'*) die "the $1 output would hold a line break: name files without one" ;; esac
	printf '%s=%s\n' "$1" "$2" >>"${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set: run as a GitHub Actions step}"
}
# oneline is s with line breaks made spaces, for a workflow command's text.
oneline() { local s="${1//$'\r'/ }"; printf '%s' "${s//$'\n'/ }"; }
summary() { cat >>"${GITHUB_STEP_SUMMARY:?GITHUB_STEP_SUMMARY is not set: run as a GitHub Actions step}"; }
tmpdir() { local d="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/workbench-action"; mkdir -p "$d"; printf '%s' "$d"; }

step_build() {
	local src bin
	src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
	bin="$(tmpdir)/bin/workbench"
	(cd "$src" && go build -o "$bin" ./cmd/workbench) || die "go build of $src/cmd/workbench failed (see above)"
	"$bin" help >/dev/null || die "the built workbench does not run"
	out path "$bin"
}

step_check() {
	local wb="${WORKBENCH:?WORKBENCH names the binary the build step made}" code
	[ -n "${INPUT_LISTING:-}" ] || die "the listing input is empty: name the listing file to check"
	local -a args=(--fail-on "${INPUT_FAIL_ON:-error}")
	[ -z "${INPUT_TASKS:-}" ] || args+=(--tasks "$INPUT_TASKS")
	[ -z "${INPUT_PROFILE:-}" ] || args+=(--profile "$INPUT_PROFILE")
	[ -z "${INPUT_IGNORE:-}" ] || args+=(--ignore "$INPUT_IGNORE")
	echo "::group::workbench check $(oneline "$INPUT_LISTING")"
	code=0
	"$wb" check "${args[@]}" --format github -- "$INPUT_LISTING" || code=$?
	echo "::endgroup::"
	if [ -n "${INPUT_SARIF:-}" ]; then
		mkdir -p "$(dirname "$INPUT_SARIF")"
		# The same findings as above: its exit code is that one's.
		"$wb" check "${args[@]}" --format sarif -- "$INPUT_LISTING" >"$INPUT_SARIF" || true
		out sarif "$INPUT_SARIF"
	fi
	if [ "$code" = 2 ]; then
		printf '## workbench check\n\nThe check could not run on the listing (exit 2): the log says why.\n\n' | summary
	else
		{ "$wb" check "${args[@]}" --format markdown -- "$INPUT_LISTING" || true; echo; } | summary
	fi
	out exit-code "$code"
}

# baseline_file prints the path of the baseline listing: INPUT_BASELINE if it is a file, else the
# listing's path read at the git ref INPUT_BASELINE (fetched from origin if the clone lacks it).
baseline_file() {
	local ref="$INPUT_BASELINE" dest path
	if [ -f "$ref" ]; then
		printf '%s' "$ref"
		return
	fi
	case "$ref" in
	-*) die "baseline $ref: neither a file nor a git ref (a ref cannot start with -)" ;;
	esac
	git rev-parse --git-dir >/dev/null 2>&1 || die "baseline $ref: no such file, and not in a git checkout to read it at a ref"
	if ! git rev-parse --verify --quiet "$ref^{commit}" >/dev/null; then
		# A pull request's checkout is shallow and has only its own commit: fetch the base.
		git fetch --quiet --no-tags --depth=1 origin "$ref" >&2 ||
			die "baseline $ref: no such file, and no such git ref here or at origin"
		ref=FETCH_HEAD
	fi
	# The listing's path in the repository, as git names it at the ref.
	case "$INPUT_LISTING" in
	/*) path="${INPUT_LISTING#"$(git rev-parse --show-toplevel)"/}" ;;
	*) path="$(git rev-parse --show-prefix)${INPUT_LISTING#./}" ;;
	esac
	dest="$(tmpdir)/baseline.json"
	if git cat-file -e "$ref:$path" 2>/dev/null; then
		git show "$ref:$path" >"$dest"
	else
		printf 'workbench action: %s is not at %s: every tool counts as added, and max-increase does not apply\n' "$path" "$INPUT_BASELINE" >&2
		printf '{"tools": []}\n' >"$dest"
		: >"$(tmpdir)/baseline-absent"
	fi
	printf '%s' "$dest"
}

step_cost() {
	local wb="${WORKBENCH:?WORKBENCH names the binary the build step made}" base code
	if [ -z "${INPUT_BASELINE:-}" ]; then
		out exit-code ""
		return
	fi
	[ -n "${INPUT_LISTING:-}" ] || die "the listing input is empty: name the listing file to cost"
	rm -f "$(tmpdir)/baseline-absent"
	base="$(baseline_file)"
	local -a args=(--baseline "$base")
	# A listing the base does not have yet grows from nothing: any percent of nothing is nothing,
	# so a limit would fail every pull request that adds the listing. Report it without one.
	if [ -n "${INPUT_MAX_INCREASE:-}" ] && [ ! -e "$(tmpdir)/baseline-absent" ]; then
		args+=(--max-increase "$INPUT_MAX_INCREASE")
	fi
	[ -z "${INPUT_TOKENIZER:-}" ] || args+=(--tokenizer "$INPUT_TOKENIZER")
	[ -z "${INPUT_RENDER:-}" ] || args+=(--render "$INPUT_RENDER")
	code=0
	"$wb" cost "${args[@]}" --format github -- "$INPUT_LISTING" || code=$?
	if [ "$code" = 2 ]; then
		printf '## workbench cost\n\nThe cost gate could not run (exit 2): the log says why.\n\n' | summary
	else
		local report
		report="$(tmpdir)/cost.md"
		"$wb" cost "${args[@]}" --format markdown -- "$INPUT_LISTING" >"$report" 2>/dev/null || true
		if [ -n "${INPUT_MAX_INCREASE:-}" ] && [ -e "$(tmpdir)/baseline-absent" ]; then
			printf '\nThe listing is new at %s, so max-increase (%s) does not apply.\n' "$(oneline "$INPUT_BASELINE")" "$(oneline "$INPUT_MAX_INCREASE")" >>"$report"
		fi
		{ cat "$report"; echo; } | summary
		out report "$report"
	fi
	out exit-code "$code"
}

# result words an exit code for the summary table; $2 says why there is none.
result() {
	case "$1" in
	'') echo "$2" ;;
	0) echo "passed" ;;
	1) echo "**failed**" ;;
	*) echo "**could not run** (exit $1)" ;;
	esac
}

step_verdict() {
	local check="${CHECK_EXIT-}" cost="${COST_EXIT-}"
	{
		printf '## workbench\n\n| Step | Result |\n|---|---|\n'
		printf '| check (fail on %s) | %s |\n' "${INPUT_FAIL_ON:-error}" "$(result "$check" "did not run")"
		printf '| cost gate | %s |\n' "$(result "$cost" "skipped (no baseline)")"
	} | summary
	if [ "$check" != 0 ] || { [ -n "$cost" ] && [ "$cost" != 0 ]; }; then
		echo "workbench: check $(result "$check" "did not run"), cost gate $(result "$cost" "skipped")" | tr -d '*' >&2
		exit 1
	fi
}

STEP="${1:-}"
case "$STEP" in
build) step_build ;;
check) step_check ;;
cost) step_cost ;;
verdict) step_verdict ;;
*) die "usage: action.sh build|check|cost|verdict (got '${1:-}')" ;;
esac
