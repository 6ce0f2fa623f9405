package lint

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/tool-workbench/workbench/listing"
)

// FixKind is the repair a rule offers.
type FixKind string

// The repair kinds.
const (
	FixSafe      FixKind = "safe"      // cannot change what the tool does or how a host treats it
	FixSuggested FixKind = "suggested" // a concrete change a person confirms after a preview
	FixNone      FixKind = "none"      // FixNote says why
)

// Repair is one concrete change for one finding, made from one listing.
type Repair struct {
	// ID is stable across revisions: a hash of the rule, the tool's name, the pointer without
	// the tool's index and the variant, behind the rule's ID. It holds no user text, so a page
	// may use it where user text may not go.
	ID        string       `json:"id"`
	Rule      string       `json:"rule"`
	Kind      FixKind      `json:"kind"`
	ToolIndex int          `json:"toolIndex"` // -1 listing-wide
	Tool      string       `json:"tool,omitempty"`
	Pointer   string       `json:"pointer"` // the finding's pointer
	Title     string       `json:"title"`   // one line: "Remove 2 invisible characters from the description"
	Ops       []listing.Op `json:"-"`       // applied to the listing it was made from
	Renames   []Rename     `json:"renames,omitempty"`
}

// Rename is a tool rename a repair makes: mentions of From in other descriptions and task
// expects follow it.
type Rename struct{ From, To string }

// repairer makes the repairs of one finding of its rule from the listing the finding is about.
type repairer func(c *fixCtx, f Finding) []Repair

// fixCtx is one Repairs call: the listing, and what several findings' repairs read, made once
// (a listing may have hundreds of thousands of findings, so nothing is read for each).
type fixCtx struct {
	l     *listing.Listing
	texts map[int]map[string]bool // by tool: the pointers of its descriptions and titles
	names map[string]bool
	index *textIndex
}

// isText reports whether rel (a pointer relative to tool i) names one of the tool's texts meant
// for reading: its description and title, its annotations' title, and the description and
// title of each subschema. Changing these cannot change what the tool accepts.
func (c *fixCtx) isText(i int, rel string) bool {
	m, ok := c.texts[i]
	if !ok {
		m = map[string]bool{}
		for _, d := range descriptions(c.l.Tools[i]) {
			m[d.ptr] = true
		}
		c.texts[i] = m
	}
	return m[rel]
}

func (c *fixCtx) nameSet() map[string]bool {
	if c.names == nil {
		c.names = nameSet(c.l.Names())
	}
	return c.names
}

func (c *fixCtx) textIndex() *textIndex {
	if c.index == nil {
		c.index = newTextIndex(c.l)
	}
	return c.index
}

// repairers holds each rule's repairer; the fix_*.go files add theirs in init.
var repairers = map[string]repairer{}

// Repairs returns every repair (safe and suggested) for findings fs of l, in finding order. A
// finding that names a tool outside l, or whose rule offers no repair, has none; two findings
// that ask for the same repair (same ID) give it once.
func Repairs(l *listing.Listing, fs []Finding) []Repair {
	var out []Repair
	seen := map[string]bool{}
	c := &fixCtx{l: l, texts: map[int]map[string]bool{}}
	for _, f := range fs {
		mk := repairers[f.Rule]
		if mk == nil {
			continue
		}
		for _, r := range mk(c, f) {
			if seen[r.ID] || len(r.Ops) == 0 {
				continue
			}
			seen[r.ID] = true
			out = append(out, r)
		}
	}
	return out
}

// newRepair starts the repair of f in tool t of l (t < 0: listing-wide) with the rule's kind
// and an ID made from the tool's name, the pointer without the index, and variant.
func newRepair(l *listing.Listing, f Finding, variant, title string, ops ...listing.Op) Repair {
	name := ""
	if f.ToolIndex >= 0 && f.ToolIndex < len(l.Tools) {
		name = l.Tools[f.ToolIndex].Get("name").String()
	}
	h := sha256.Sum256([]byte(f.Rule + "\x00" + name + "\x00" + stripToolIndex(f.Pointer) + "\x00" + variant))
	kind := FixNone
	if r := registry[f.Rule]; r != nil {
		kind = r.Fix
	}
	return Repair{ID: f.Rule + "-" + hex.EncodeToString(h[:6]), Rule: f.Rule, Kind: kind, ToolIndex: f.ToolIndex,
		Tool: clip(name), Pointer: f.Pointer, Title: title, Ops: ops}
}

// findingTool returns the tool f is about and the pointer's tokens below it, or nil when f
// names no tool of l or its pointer is not under that tool.
func findingTool(l *listing.Listing, f Finding) (*listing.Value, []string) {
	if f.ToolIndex < 0 || f.ToolIndex >= len(l.Tools) {
		return nil, nil
	}
	toks, err := listing.SplitPointer(f.Pointer)
	if err != nil || len(toks) < 2 || toks[0] != "tools" || toks[1] != strconv.Itoa(f.ToolIndex) {
		return nil, nil
	}
	return l.Tools[f.ToolIndex], toks[2:]
}

// setString is the op that sets the string at ptr to s.
func setString(ptr, s string) listing.Op {
	return listing.Op{Kind: listing.OpSet, Path: ptr, Value: listing.NewString(s)}
}

// plural returns "1 character" or "3 characters".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// textName says which text a pointer names, for a repair's title: "the description",
// "the title", "the description of parameter q".
func textName(rel string) string {
	toks, _ := listing.SplitPointer(rel)
	if len(toks) == 0 {
		return "the text"
	}
	what := "the " + toks[len(toks)-1]
	if len(toks) >= 4 && toks[0] == "inputSchema" && toks[1] == "properties" {
		return what + " of parameter " + clip(toks[2])
	}
	if len(toks) > 1 {
		return what + " at " + strings.Join(toks[:len(toks)-1], "/")
	}
	return what
}
