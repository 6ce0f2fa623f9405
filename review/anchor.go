package review

import (
	"strings"
	"unicode/utf8"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

// anchorAt checks target t against the head listing l and returns the anchor of a thread there.
func anchorAt(op string, l *listing.Listing, t Target) (store.Anchor, error) {
	switch {
	case t.Index < 0:
		return store.Anchor{}, store.Errorf(store.Invalid, op, "the tool index %d is negative; tools are numbered from 0", t.Index)
	case t.Tool == "":
		return store.Anchor{}, store.Errorf(store.Invalid, op, "no tool named; give the name of the tool at index %d", t.Index)
	case t.Index >= len(l.Tools):
		return store.Anchor{}, store.Errorf(store.Conflict, op, "the listing changed: it has %d tools now, no tool %d; reload", len(l.Tools), t.Index+1)
	}
	tool := l.Tools[t.Index]
	if name := tool.Get("name").String(); name != t.Tool {
		return store.Anchor{}, store.Errorf(store.Conflict, op, "the listing changed: tool %d is now %q, not %q; reload", t.Index+1, clip(name, 100), clip(t.Tool, 100))
	}
	// The field is a pointer into the listing, whose names may hold any character: valid
	// UTF-8 and its length only. The rule ID is ours: one plain line.
	if err := store.CheckListingText(op, "field", t.Field, store.MaxAnchorField); err != nil {
		return store.Anchor{}, err
	}
	if err := store.CheckText(op, "finding's rule", t.Finding, store.MaxAnchorRule, false, false); err != nil {
		return store.Anchor{}, err
	}
	if t.Field != "" && !strings.HasPrefix(t.Field, "/") {
		return store.Anchor{}, store.Errorf(store.Invalid, op, "the field %q is not a JSON pointer inside the tool; give \"\" for the whole tool or one like /description", clip(clean(t.Field), 100))
	}
	// The tool's name as the listing has it (cleaned only where it is shown: label), so that a
	// thread whose tool was removed comes back on a tool of that very name; one too long to
	// keep is clipped, and then only follows its tool by place.
	a := store.Anchor{Tool: clip(strings.ToValidUTF8(t.Tool, string(utf8.RuneError)), store.MaxTitle), Index: t.Index, Field: t.Field, Finding: t.Finding}
	if t.Finding != "" {
		msg := strings.TrimSpace(t.Text)
		if msg == "" {
			return store.Anchor{}, store.Errorf(store.Invalid, op, "a thread on finding %s needs the finding's message", clip(t.Finding, store.MaxAnchorRule))
		}
		a.Text = anchorText(msg)
		return a, nil
	}
	text, ok := fieldText(tool, t.Field)
	if !ok {
		return store.Anchor{}, store.Errorf(store.Invalid, op, "tool %q has no %s; comment on the whole tool, or on a field it has", clip(clean(t.Tool), 100), clip(clean(t.Field), 100))
	}
	a.Text = anchorText(text)
	return a, nil
}

// fieldText returns the text an anchor at field keeps of tool t (its description for the whole
// tool and for a parameter that has one, a string as it is, anything else as compact JSON), and
// whether the field is there.
func fieldText(t *listing.Value, field string) (string, bool) {
	if field == "" {
		if d := t.Get("description"); d != nil {
			return valueText(d), true
		}
		return "", true
	}
	v := listing.Resolve(t, field)
	if v == nil {
		return "", false
	}
	if _, ok := parameter(field); ok {
		if d := v.Get("description"); d.IsString() {
			return d.Str, true
		}
	}
	return valueText(v), true
}

func valueText(v *listing.Value) string {
	if v.IsString() {
		return v.Str
	}
	return string(listing.Marshal(v, ""))
}

// parameter returns NAME when field is /inputSchema/properties/NAME.
func parameter(field string) (string, bool) {
	toks, err := listing.SplitPointer(field)
	if err != nil || len(toks) != 3 || toks[0] != "inputSchema" || toks[1] != "properties" {
		return "", false
	}
	return toks[2], true
}

// anchorText is text as an anchor keeps it: control characters (but newlines and tabs) and
// bidirectional controls, which the store refuses, as U+FFFD, clipped to MaxAnchorText
// characters. The text at the head goes through it too before it is compared.
func anchorText(s string) string {
	return clip(cleanText(s, true), store.MaxAnchorText)
}

// clean is cleanText for a one-line value (a tool name).
func clean(s string) string { return cleanText(s, false) }

func cleanText(s string, multiline bool) string {
	return strings.Map(func(r rune) rune {
		switch {
		case multiline && (r == '\n' || r == '\t'):
			return r
		case r < 0x20, r >= 0x7f && r <= 0x9f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return utf8.RuneError
		}
		return r
	}, strings.ToValidUTF8(s, string(utf8.RuneError)))
}

// clip cuts s to at most n characters.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n])
}

// label names an anchor for people: "search_issues › parameter query", with the listing's
// control and bidirectional characters shown as U+FFFD.
func label(tool string, a store.Anchor) string {
	return clean(rawLabel(tool, a))
}

func rawLabel(tool string, a store.Anchor) string {
	var what string
	switch {
	case a.Finding != "":
		what = "finding " + a.Finding
	case a.Field == "":
		return tool
	case a.Field == "/description":
		what = "description"
	case a.Field == "/title":
		what = "title"
	case a.Field == "/annotations":
		what = "annotations"
	default:
		if p, ok := parameter(a.Field); ok {
			what = "parameter " + p
		} else if toks, err := listing.SplitPointer(a.Field); err == nil && len(toks) == 2 && toks[0] == "annotations" {
			what = "annotation " + toks[1]
		} else {
			what = a.Field
		}
	}
	return tool + " › " + what
}

// outdated tells whether the text a thread was made on differs at the head, and the text now.
// A finding's thread is never outdated by text: its anchor keeps the finding's message, which
// only a lint run could give again.
func outdated(tool *listing.Value, a store.Anchor) (bool, string) {
	if a.Finding != "" {
		return false, ""
	}
	now, ok := fieldText(tool, a.Field)
	if !ok {
		return true, ""
	}
	now = anchorText(now)
	if now == a.Text {
		return false, ""
	}
	return true, now
}
