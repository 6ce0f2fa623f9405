package lint

import (
	"fmt"
	"sort"
	"strings"
)

// Severity is how much a finding matters.
type Severity string

// The severities, from most to least severe.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Info    Severity = "info"
)

// Rank orders severities: error 3, warning 2, info 1, anything else 0.
func (s Severity) Rank() int {
	switch s {
	case Error:
		return 3
	case Warning:
		return 2
	case Info:
		return 1
	}
	return 0
}

// ParseSeverity reads a severity name.
func ParseSeverity(s string) (Severity, error) {
	switch Severity(s) {
	case Error, Warning, Info:
		return Severity(s), nil
	}
	return "", fmt.Errorf("unknown severity %q: use error, warning or info", s)
}

// Category groups rules.
type Category string

// The categories.
const (
	CatSchema      Category = "schema"
	CatNaming      Category = "naming"
	CatAnnotations Category = "annotations"
	CatDescription Category = "description"
	CatSecurity    Category = "security"
	CatOutput      Category = "output"
	CatListing     Category = "listing"
	CatSelection   Category = "selection"
)

// Scope says what a rule reads.
type Scope string

// The scopes.
const (
	PerTool     Scope = "tool"      // a pure function of one tool's JSON; cached by content hash
	ListingWide Scope = "listing"   // reads the whole listing (or several); runs on every lint
	Reference   Scope = "reference" // a check of the reference checker (package lint/reference)
)

// Rule is one rule with its documentation.
type Rule struct {
	ID       string   `json:"id"`
	Category Category `json:"category"`
	Severity Severity `json:"severity"`
	Scope    Scope    `json:"scope"`
	// Summary is one line: what a finding of this rule means.
	Summary string `json:"summary"`
	// What the rule checks, and Why it matters (naming the seed that teaches it).
	What string `json:"what"`
	Why  string `json:"why"`
	Seed string `json:"seed"`
	// Bad and Good are short examples (JSON fragments or description text).
	Bad  string `json:"bad"`
	Good string `json:"good"`
	// Fix is the repair the rule offers; FixNote says what it does, or (FixNone) in one line
	// why there is none. register fills both from fixDocs when a rule leaves them empty.
	Fix     FixKind `json:"fix"`
	FixNote string  `json:"fixNote"`
}

// Doc renders the rule's documentation as plain text (also valid Markdown).
func (r *Rule) Doc() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s, %s, %s)\n\n%s\n\nWhat it checks: %s\n\nWhy: %s", r.ID, r.Category, r.Severity, scopeWords(r.Scope), r.Summary, r.What, r.Why)
	if r.Seed != "" {
		fmt.Fprintf(&b, " (%s)", r.Seed)
	}
	fmt.Fprintf(&b, "\n\nFix (%s): %s", r.Fix, r.FixNote)
	fmt.Fprintf(&b, "\n\nBad:\n\n    %s\n\nGood:\n\n    %s\n", indent(r.Bad), indent(r.Good))
	return b.String()
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n    ") }

func scopeWords(s Scope) string {
	switch s {
	case PerTool:
		return "per tool"
	case ListingWide:
		return "listing-wide"
	}
	return "reference checker"
}

var registry = map[string]*Rule{}

func register(rs ...*Rule) {
	for _, r := range rs {
		if _, dup := registry[r.ID]; dup {
			panic("lint: rule registered twice: " + r.ID)
		}
		if r.What == "" || r.Why == "" || r.Bad == "" || r.Good == "" || r.Summary == "" {
			panic("lint: rule without a full doc: " + r.ID)
		}
		if r.Fix == "" && r.FixNote == "" {
			d := fixDocs[r.ID]
			r.Fix, r.FixNote = d.kind, d.note
		}
		if r.Fix == "" || r.FixNote == "" {
			panic("lint: rule without a fix declaration: " + r.ID)
		}
		registry[r.ID] = r
	}
}

// Rules returns every rule, ordered by category, then ID.
func Rules() []*Rule {
	out := make([]*Rule, 0, len(registry))
	for _, r := range registry {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Category != out[j].Category {
			return out[i].Category < out[j].Category
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Lookup returns the rule with id, or nil.
func Lookup(id string) *Rule { return registry[id] }

// Finding is one problem a rule found.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// Tool is the tool's name; ToolIndex its position in the listing (-1 for listing-wide
	// findings, which have no tool).
	Tool      string `json:"tool,omitempty"`
	ToolIndex int    `json:"toolIndex"`
	// Pointer is a JSON pointer into the tools/list result (/tools/3/inputSchema/properties/q).
	Pointer string `json:"pointer"`
	Message string `json:"message"`
	// Line and Column (1-based, columns in characters) locate Pointer in the source text; 0 when
	// the value has no source position (an edited value, a synthetic listing).
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
	// Source names the listing a finding is about when several are linted together
	// (MergeCollisions); empty otherwise.
	Source string `json:"source,omitempty"`
}

// Key identifies a finding across runs for baselines: rule, tool name and pointer without the
// tool's index (so that inserting a tool does not make every later finding new), and message.
func (f Finding) Key() string {
	return f.Rule + "\x00" + f.Tool + "\x00" + stripToolIndex(f.Pointer) + "\x00" + f.Message
}

// stripToolIndex turns /tools/12/inputSchema into /tools/*/inputSchema.
func stripToolIndex(p string) string {
	if !strings.HasPrefix(p, "/tools/") {
		return p
	}
	rest := p[len("/tools/"):]
	i := strings.IndexByte(rest, '/')
	if i < 0 {
		return "/tools/*"
	}
	return "/tools/*" + rest[i:]
}
