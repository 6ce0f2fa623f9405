package lint

import (
	"fmt"
	"strings"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/words"
)

func init() {
	register(
		&Rule{ID: "annotations-missing", Category: CatAnnotations, Severity: Warning, Scope: PerTool, Seed: seed000 + "; " + seed003,
			Summary: "a tool without any behaviour hint: a careful host assumes the worst",
			What:    "The tool has no annotations object, or one without readOnlyHint, destructiveHint, idempotentHint and openWorldHint.",
			Why:     "The specification's defaults describe the worst case: readOnlyHint false, destructiveHint true, idempotentHint false, openWorldHint true. Leaving the hints out tells a careful host that the tool may destroy data, cannot be retried and reaches the open world, so it asks for consent before a harmless search. Annotate every tool.",
			Bad:     `{"name": "search_products", "description": "…", "inputSchema": {…}}`,
			Good:    `{"name": "search_products", …, "annotations": {"readOnlyHint": true, "openWorldHint": false}}`},
		&Rule{ID: "annotations-assumed-destructive", Category: CatAnnotations, Severity: Info, Scope: PerTool, Seed: seed000,
			Summary: "a tool that may change things and does not say whether it destroys: the host assumes it does",
			What:    "readOnlyHint is false or absent and destructiveHint is absent, so the default (true) applies: a careful host treats the tool as destructive. The message lists every hint the host assumes.",
			Why:     "destructiveHint and idempotentHint mean something only when readOnlyHint is false, and their defaults (destructive, not idempotent) apply when they are absent. A tool that only adds records (a comment, a refund from a quote) says destructiveHint: false so that the host can tell it from one that overwrites or deletes.",
			Bad:     `"name": "tickets_add_comment", "annotations": {"readOnlyHint": false}`,
			Good:    `"name": "tickets_add_comment", "annotations": {"readOnlyHint": false, "destructiveHint": false, "openWorldHint": false}`},
		&Rule{ID: "annotations-contradict", Category: CatAnnotations, Severity: Error, Scope: PerTool, Seed: seed000,
			Summary: "hints that contradict each other, or are not booleans",
			What:    "readOnlyHint: true together with destructiveHint: true (a tool cannot both change nothing and destroy data); any hint whose value is not a boolean. readOnlyHint: true with idempotentHint is not reported: a read is idempotent, and hosts ignore both hints on a read-only tool.",
			Why:     "destructiveHint and idempotentHint mean something only when readOnlyHint is false. A host that believes readOnlyHint skips consent, one that believes destructiveHint asks for it: contradictory hints make the host's decision depend on which it reads first, and usually mean one was copied from another tool.",
			Bad:     `"annotations": {"readOnlyHint": true, "destructiveHint": true}`,
			Good:    `"annotations": {"readOnlyHint": false, "destructiveHint": true}`},
		&Rule{ID: "annotations-readonly-writes", Category: CatAnnotations, Severity: Error, Scope: PerTool, Seed: seed001 + "; " + seed000,
			Summary: "a name that says the tool writes or deletes, marked readOnlyHint: true",
			What:    "A word of the tool's name (other than add in an arithmetic name such as add_numbers) is a write verb (create, update, delete, remove, write, set, add, post, put, patch, send, publish, deploy, upload, merge, push, cancel, close, reset, edit, rename, move, insert, drop, destroy, purge, revoke) and readOnlyHint is true.",
			Why:     "A host may skip asking for approval for a read-only tool. \"Nothing stops a malicious server from labeling a delete tool as read-only\"; on your own server, make the hints true. A write verb with readOnlyHint: true is either a wrong hint or a misleading name.",
			Bad:     `"name": "tickets_delete", "annotations": {"readOnlyHint": true}`,
			Good:    `"name": "tickets_delete", "annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": true}`},
		&Rule{ID: "annotations-destructive-unmarked", Category: CatAnnotations, Severity: Warning, Scope: PerTool, Seed: seed002 + "; " + seed000,
			Summary: "a destructive-sounding tool marked destructiveHint: false",
			What:    "A word of the name is destructive (delete, remove, drop, destroy, purge, erase, wipe, truncate, reset, overwrite, uninstall, revoke, terminate, kill) and destructiveHint is false.",
			Why:     "For a destructive operation, set destructiveHint and expect the client to ask the user: the specification wants a person able to deny tool calls. Claiming a delete is not destructive removes that chance.",
			Bad:     `"name": "tickets_delete", "annotations": {"readOnlyHint": false, "destructiveHint": false}`,
			Good:    `"name": "tickets_delete", "annotations": {"readOnlyHint": false, "destructiveHint": true}`},
	)
	toolChecks = append(toolChecks, checkAnnotations)
}

// Hints is what a careful host assumes about a tool: each hint the tool sets, and the
// specification's default for the rest (listing.Hints: readOnly false, destructive true,
// idempotent false, openWorld true). Destructive and Idempotent mean nothing for a read-only
// tool.
type Hints struct {
	ReadOnly, Destructive, Idempotent, OpenWorld bool
	// Set lists the hints the tool declares itself.
	Set []string
}

// AssumedHints returns the hints a careful host assumes for tool t.
func AssumedHints(t *listing.Value) Hints {
	var h Hints
	a := t.Get("annotations")
	// Each hint's field, by the specification's key; listing.Hints gives the keys, their order
	// and the defaults.
	fields := map[string]*bool{"readOnlyHint": &h.ReadOnly, "destructiveHint": &h.Destructive,
		"idempotentHint": &h.Idempotent, "openWorldHint": &h.OpenWorld}
	for _, hint := range listing.Hints {
		field := fields[hint.Key]
		*field = hint.Default
		if v := a.Get(hint.Key); v != nil && v.Kind == listing.Bool {
			h.Set = append(h.Set, hint.Key)
			*field = v.Bool
		}
	}
	return h
}

// String lists the assumed hints as the seed's example prints them: "destructive, open_world".
func (h Hints) String() string {
	var on []string
	if h.ReadOnly {
		on = append(on, "read_only")
	} else {
		if h.Destructive {
			on = append(on, "destructive")
		}
		if h.Idempotent {
			on = append(on, "idempotent")
		}
	}
	if h.OpenWorld {
		on = append(on, "open_world")
	}
	if len(on) == 0 {
		return "nothing"
	}
	return strings.Join(on, ", ")
}

var (
	writeWords       = set("create update delete remove write set add post put patch send publish deploy upload merge push cancel close reset edit rename move insert drop destroy purge revoke")
	destructiveWords = set("delete remove drop destroy purge erase wipe truncate reset overwrite uninstall revoke terminate kill")
)

func nameWord(name string, in map[string]bool) string {
	for _, w := range words.Tokens(name) {
		if in[w] {
			return w
		}
	}
	return ""
}

var numberWords = set("number numbers integer integers two sum value values float floats")

// arithmetic reports a name such as add or add_numbers, where "add" computes rather than writes
// (the reference's verb lists report it; seed 002 shows the case).
func arithmetic(name string) bool {
	toks := words.Tokens(name)
	if len(toks) == 0 || toks[0] != "add" {
		return false
	}
	for _, t := range toks[1:] {
		if !numberWords[t] {
			return false
		}
	}
	return true
}

func checkAnnotations(c *toolCtx) {
	a := c.tool.Get("annotations")
	h := AssumedHints(c.tool)
	if a != nil && a.Kind != listing.Object {
		c.report("annotations-contradict", "/annotations", fmt.Sprintf("annotations must be an object, got %s", a.Kind))
		return
	}
	for _, hint := range listing.Hints {
		k := hint.Key
		if v := a.Get(k); v != nil && v.Kind != listing.Bool {
			c.report("annotations-contradict", "/annotations/"+k, fmt.Sprintf("%s must be true or false, got %s: a host reads it as absent (the default)", k, short(string(listing.Marshal(v, "")))))
		}
	}
	if len(h.Set) == 0 {
		c.report("annotations-missing", "/annotations", "no behaviour hints: a careful host assumes "+h.String()+" and asks for consent before every call; set readOnlyHint (and for a tool that changes things destructiveHint, idempotentHint), and openWorldHint")
		return
	}
	ro, de := a.Get("readOnlyHint"), a.Get("destructiveHint")
	if h.ReadOnly && de != nil && de.Kind == listing.Bool && de.Bool {
		c.report("annotations-contradict", "/annotations/destructiveHint", "readOnlyHint: true together with destructiveHint: true: a read-only tool destroys nothing; fix whichever is wrong")
	}
	if h.ReadOnly && ro != nil {
		if w := nameWord(c.name, writeWords); w != "" && !arithmetic(c.name) {
			c.report("annotations-readonly-writes", "/annotations/readOnlyHint", fmt.Sprintf("the name says %q but readOnlyHint is true, so a host may call it without asking: fix the hint or the name", w))
		}
	}
	if !h.ReadOnly {
		if w := nameWord(c.name, destructiveWords); w != "" && de != nil && de.Kind == listing.Bool && !de.Bool {
			c.report("annotations-destructive-unmarked", "/annotations/destructiveHint", fmt.Sprintf("the name says %q but destructiveHint is false: if the tool deletes or overwrites, say destructiveHint: true so the host asks the user", w))
		}
		if de == nil {
			c.report("annotations-assumed-destructive", "/annotations", "destructiveHint is not set, so a careful host assumes "+h.String()+"; if the tool only adds, say destructiveHint: false")
		}
	}
}
