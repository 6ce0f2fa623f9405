package lint

import (
	"github.com/tool-workbench/workbench/lint/reference"
	"github.com/tool-workbench/workbench/listing"
)

func refRule(id string, cat Category, sev Severity, summary, what, why, bad, good string) *Rule {
	return &Rule{ID: id, Category: cat, Severity: sev, Scope: Reference, Seed: seed002 + ", the reference checker",
		Summary: summary, What: what, Why: why, Bad: bad, Good: good}
}

func init() {
	register(
		refRule("list-complete", CatListing, Warning, "nextCursor is present: only the first page was read",
			"The tools/list result carries a nextCursor, so the listing is incomplete.",
			"tools/list is paginated with a cursor; a review of the first page misses tools, and the listing-wide checks (duplicates, collisions, budgets) see only part of the list.",
			`{"tools": [...], "nextCursor": "eyJwYWdlIjogMn0="}`, `every page fetched and merged (workbench reads an array of pages)`),
		refRule("name-spec", CatNaming, Error, "a name outside 1 to 128 characters of A-Z a-z 0-9 _ - .",
			"Each name must be 1 to 128 characters from A-Z, a-z, 0-9, underscore, hyphen and dot.",
			"The specification's rule for tool names (SHOULD); hosts and model APIs reject or rewrite other names.",
			`"name": "tickets get"`, `"name": "tickets_get"`),
		refRule("name-unique", CatNaming, Error, "the same name twice in one listing",
			"Two tools of the listing have the same name.", "Names must be unique within a server: a call names the tool, so one of the two can never be called.",
			`two tools named "search"`, `"tickets_search" and "users_search"`),
		refRule("name-case-collision", CatNaming, Warning, "two names that differ only in case or separators",
			"Names equal once case and separators are ignored (TicketsGet, tickets_get).", "A model that sees both cannot tell which one a task means, and a host that normalises names merges them.",
			`"TicketsGet" and "tickets_get"`, `one of them, renamed for what it does differently`),
		refRule("name-style", CatNaming, Warning, "more than one naming style",
			"The names mix snake_case, kebab-case, dotted and camelCase.", "One naming style makes the list easier to read for people and models alike; mixed styles usually mean tools from different generations.",
			`"get_ticket", "search-tickets", "createTicket"`, `"tickets_get", "tickets_search", "tickets_create"`),
		refRule("name-generic", CatNaming, Warning, "a name made only of generic words",
			"A name whose every word is generic (get, data, run, search, query, …).", "A short generic name never says which object it works on; clients that merge servers meet two `search` tools and must prefix them.",
			`"search", "get_data"`, `"tickets_search", "users_find"`),
		refRule("input-schema", CatSchema, Error, "inputSchema is not an object",
			"inputSchema must be a JSON object.", "The specification requires a JSON Schema object (MUST); never null.",
			`"inputSchema": null`, `"inputSchema": {"type": "object", "additionalProperties": false}`),
		refRule("description", CatDescription, Warning, "no description, or fewer than 8 words",
			"The tool's description has fewer than 8 words.", "Fewer words cannot say both what a tool does and when to use it; 56% of published tools do not say plainly what they are for.",
			`"description": "Gets order."`, `"description": "Look up one order by its id, like ord_123. Returns status, items and total. To find orders by customer email, use find_orders instead."`),
		refRule("params-described", CatSchema, Warning, "a parameter with no description, enum or const",
			"A top-level parameter without a description, enum or const.", "The parameter's description is where the model looks when it fills in one argument.",
			`"id": {"type": "string"}`, `"ticket_id": {"type": "integer", "description": "Numeric ticket id."}`),
		refRule("params-required", CatSchema, Warning, "parameters declared but no `required` key",
			"The schema has properties but no required list.", "Without it the definition does not say what the call needs; declare an empty list when all are optional.",
			`{"type": "object", "properties": {"q": {...}}}`, `{"type": "object", "properties": {"q": {...}}, "required": ["q"]}`),
		refRule("params-opaque", CatSchema, Warning, "an object parameter without properties",
			"A parameter of type object with no properties.", "A bare {\"type\": \"object\"} tells the model nothing about its content.",
			`"data": {"type": "object"}`, `"data": {"type": "object", "properties": {"title": {...}}, "required": ["title"]}`),
		refRule("no-params-closed", CatSchema, Warning, "a tool without parameters that lacks additionalProperties: false",
			"A tool with no parameters whose schema is not closed.", "The recommended form for a tool without parameters is {\"type\": \"object\", \"additionalProperties\": false}.",
			`"inputSchema": {"type": "object"}`, `"inputSchema": {"type": "object", "additionalProperties": false}`),
		refRule("annotations", CatAnnotations, Warning, "a read or write verb in the name without the matching hint",
			"The first read or write verb in the name decides: a read verb without readOnlyHint, a write verb with neither readOnlyHint nor destructiveHint.", "Omitted hints mean the schema defaults: the host assumes the tool may modify and destroy.",
			`"name": "tickets_get"`+" (no annotations)", `"name": "tickets_get", "annotations": {"readOnlyHint": true}`),
		refRule("near-duplicate", CatDescription, Warning, "two descriptions that share half their words or more",
			"Pairs of descriptions whose content words overlap (Jaccard) by 50% or more. Past 2,000 pairs the finding reports groups of tools linked by such pairs (each with its tools, pairs and range of overlap) instead of every pair; --rules reference prints every pair, as the reference does, up to 250,000.", "The model cannot tell the two apart; the draft in seed 002 failed a task because a neighbour's description held the task's words.",
			`"Get ticket data by id." / "Fetch ticket data."`, `descriptions that say what differs, and name each other`),
		refRule("select", CatSelection, Error, "a task the word-overlap ranker answers wrongly or ambiguously",
			"With --tasks: the expected tool is not ranked first (FAIL), no word of the task appears in any definition (FAIL), or the runner-up scores within 80% of the winner (WARN).",
			"A stand-in for a model with only the words of the definitions: if the words do not separate two tools, a model has less to go on too. Measure with a real model before trusting it.",
			`task "Close ticket 4521" ranks tickets_get first`, `tickets_update_status's description says "close, resolve or reopen a ticket"`),
	)
}

// ReferenceFindings turns the reference's WARN and FAIL lines into findings (FAIL is error, WARN
// warning), located in l.
func (lt *Linter) ReferenceFindings(l *listing.Listing, lines []reference.Line) []Finding {
	var out []Finding
	names := l.Names()
	for _, ln := range lines {
		if ln.Level != reference.Warn && ln.Level != reference.Fail {
			continue
		}
		f := Finding{Rule: ln.Rule, Severity: levelSeverity(ln.Level), ToolIndex: ln.Tool, Pointer: ln.Ptr, Message: ln.Detail}
		if ln.Tool >= 0 && ln.Tool < len(names) {
			f.Tool = clip(names[ln.Tool])
		}
		if f.Pointer == "" {
			f.Pointer = "/tools"
			if ln.Rule == "list-complete" {
				f.Pointer = "/nextCursor"
			}
		}
		out = append(out, f)
	}
	lt.locate(l, out)
	return out
}

func levelSeverity(level string) Severity {
	if level == reference.Fail {
		return Error
	}
	return Warning
}

// Locate fills in the line and column of findings about l (for findings built elsewhere, such as
// MergeCollisions).
func (lt *Linter) Locate(l *listing.Listing, fs []Finding) { lt.locate(l, fs) }
