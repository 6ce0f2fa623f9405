package views

import "fmt"

// FixButton is one repair a finding offers (a finding may offer several: each behaviour hint
// is its own). Ref names it in the Fix button's action: a short hash of its Repair.ID, which
// holds tool names and so never goes into an expression itself.
type FixButton struct {
	Ref   string
	Title string
	Kind  string // safe or suggested
}

// FixSet is a scope's safe repairs, for its "Fix all safe" button: Query selects them (server
// made: repair hashes, or every safe repair of the listing) and N counts them.
type FixSet struct {
	Query string
	N     int
}

// FixRepairRow is one repair a preview lists.
type FixRepairRow struct {
	Rule  string
	Kind  string
	Title string
}

// FixTextDiff is a word diff of one text member of a tool (its description, say).
type FixTextDiff struct {
	Field string
	Runs  []DiffRun
}

// JSONLine is one line of a JSON diff: Op is "=", "-" or "+", or "…" for kept lines left out.
type JSONLine struct {
	Op   string
	Text string
}

// FixToolDiff is what a preview's repairs change in one tool.
type FixToolDiff struct {
	Name string
	Text []FixTextDiff
	JSON []JSONLine
}

// FixPreview shows what a Fix (or a "Fix all safe") would change before it applies: the
// repairs, each changed tool's word and JSON diffs, the task file's renamed expects, and the
// findings before and after. Query re-selects the same repairs for Apply, which makes them
// again from the listing as it then stands.
type FixPreview struct {
	WS        string
	Query     string
	Heading   string
	Repairs   []FixRepairRow
	Tools     []FixToolDiff
	MoreTools int
	Tasks     []TaskChange
	Before    int
	After     int
	Revisions int // one per rule
	Problem   string
}

// fixExpr posts a selection of repairs (a query the server wrote) to path: the preview
// ("fix") or its Apply ("fix/apply").
func fixExpr(ws, path, query string) string {
	return fmt.Sprintf("@post('%s?%s')", wsURL(ws, path), query)
}

// fixSummary says what Apply stores.
func fixSummary(p FixPreview) string {
	revs := "one revision"
	if p.Revisions > 1 {
		revs = fmt.Sprintf("%d revisions, one per rule", p.Revisions)
	}
	return fmt.Sprintf("Findings %d → %d. Apply stores %s (“fix: RULE”); Undo takes each back.", p.Before, p.After, revs)
}

// jsonPrefix marks a JSON diff line.
func jsonPrefix(op string) string {
	switch op {
	case "-":
		return "- "
	case "+":
		return "+ "
	case "…":
		return "  …"
	}
	return "  "
}

// jsonClass is a JSON diff line's class.
func jsonClass(op string) string {
	switch op {
	case "-":
		return "jd-del"
	case "+":
		return "jd-add"
	case "…":
		return "jd-gap"
	}
	return "jd-keep"
}
