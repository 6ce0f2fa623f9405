// Package lint checks MCP tool listings against the rules the seeds teach: the reference
// checker's rules (package lint/reference, reproduced exactly) and an extended set on schema
// validity, annotations, descriptions, poisoned or hidden text, structured output, header
// parameters and the listing as a whole.
//
// Every rule has a stable ID, a category, a default severity and a doc (what it checks, why, a
// bad and a good example); see Rules and Lookup. A Finding names the rule, the tool, a JSON
// pointer into the tools/list result and, when the listing came from text, the line and column.
//
// Rules come in two kinds. Per-tool rules are pure functions of one tool's JSON: a Linter caches
// their findings by the tool's content hash (listing.HashOf), and compiled-schema results by the
// schema's hash, so re-linting after an edit to one tool re-runs that tool's rules and the
// listing-wide ones only. Listing-wide rules (duplicates, shadowing, collisions, budgets) run on
// every call from cached per-tool facts.
//
// JSON Schemas are compiled through package schema (the one setup of
// github.com/santhosh-tekuri/jsonschema/v6, with its bounds); a $ref that leaves the document is
// never fetched: the loader refuses it and the refusal is a finding. Ignore files and baselines,
// which select findings, live here too. The package holds rules only: the check that combines
// them with the ranker, and the report's formats, are package analysis's. It does no I/O and
// does not log.
package lint
