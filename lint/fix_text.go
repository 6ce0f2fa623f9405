package lint

import (
	"strings"

	"github.com/tool-workbench/workbench/listing"
)

func init() {
	repairers["hidden-unicode"] = repairHidden
	repairers["description-whitespace"] = repairWhitespace
}

// repairHidden removes the characters hiddenKind flags from a description or title. Elsewhere
// (names, keys, enum values, defaults) the characters are part of what the tool accepts.
func repairHidden(l *listing.Listing, f Finding) []Repair {
	t, toks := findingTool(l, f)
	if t == nil {
		return nil
	}
	rel := listing.JoinPointer(toks...)
	if !textPointer(t, rel) {
		return nil
	}
	v := listing.Resolve(t, rel)
	clean, n := stripHidden(v.String())
	if n == 0 {
		return nil
	}
	return []Repair{newRepair(l, f, "", "Remove "+plural(n, "invisible character")+" from "+textName(rel), setString(f.Pointer, clean))}
}

// stripHidden returns s without the characters hiddenKind flags, and how many it removed.
func stripHidden(s string) (string, int) {
	n := 0
	out := strings.Map(func(r rune) rune {
		if hiddenKind(r) != "" {
			n++
			return -1
		}
		return r
	}, s)
	return out, n
}

// repairWhitespace trims a description or title as the rule trims it.
func repairWhitespace(l *listing.Listing, f Finding) []Repair {
	t, toks := findingTool(l, f)
	if t == nil {
		return nil
	}
	rel := listing.JoinPointer(toks...)
	if !textPointer(t, rel) {
		return nil
	}
	s := listing.Resolve(t, rel).String()
	trimmed := strings.TrimSpace(s) // as the rule tests it
	if trimmed == s {
		return nil
	}
	return []Repair{newRepair(l, f, "", "Trim the whitespace around "+textName(rel), setString(f.Pointer, trimmed))}
}
