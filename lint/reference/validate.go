package reference

import (
	"fmt"

	"github.com/tool-workbench/workbench/listing"
)

// CrashError describes input on which the reference checker stops with a Python exception instead
// of a report. The workbench refuses such input with this message (exit 2) rather than imitate
// the crash.
type CrashError struct {
	Ptr string
	Msg string
}

func (e *CrashError) Error() string { return fmt.Sprintf("%s: %s", e.Ptr, e.Msg) }

// Validate returns a *CrashError for the first value of l that the reference cannot handle: text
// that is not a string where it reads text, a lone surrogate (which cannot be written as UTF-8),
// and, when ranking, the shapes its ranker cannot iterate; and arrays and objects nested deeper
// than its Python's json module decodes (listing.PythonMaxDepth).
func Validate(l *listing.Listing, ranking bool) error {
	// Python's json module stops first, before the checker reads a value.
	if d, p := listing.Deepest(l.Doc); d > listing.PythonMaxDepth {
		if p == "" {
			p = "/"
		}
		if toks, err := listing.SplitPointer(p); err == nil && len(toks) > 6 {
			p = listing.JoinPointer(toks[:6]...) + "/…" // where it starts; the rest is /0/0/…
		}
		return &CrashError{p, fmt.Sprintf("arrays and objects nest %d levels deep here; the reference's Python decodes at most %d (RecursionError). Flatten the schema", d, listing.PythonMaxDepth)}
	}
	for i, t := range l.Tools {
		base := fmt.Sprintf("/tools/%d", i)
		if p := findSurrogate(t, base); p != "" {
			return &CrashError{p, "holds a lone surrogate escape (such as \\ud800) that cannot be written as UTF-8"}
		}
		if d := t.Get("description"); d.Truthy() && !d.IsString() {
			return &CrashError{base + "/description", fmt.Sprintf("description is a %s, not a string", d.Kind)}
		}
		if !ranking {
			continue
		}
		if v := t.Get("title"); v.Truthy() && !v.IsString() {
			return &CrashError{base + "/title", fmt.Sprintf("title is a %s, not a string", v.Kind)}
		}
		s := t.Get("inputSchema")
		if s.Truthy() && !s.IsObject() {
			return &CrashError{base + "/inputSchema", fmt.Sprintf("inputSchema is a %s, not an object", s.Kind)}
		}
		props := s.Get("properties")
		if !props.IsObject() {
			continue
		}
		for _, m := range props.Fields() {
			v := m.Value
			if !v.IsObject() {
				continue
			}
			p := base + "/inputSchema/properties/" + listing.JoinPointer(m.Key)[1:]
			if d := v.Get("description"); d.Truthy() && !d.IsString() {
				return &CrashError{p + "/description", fmt.Sprintf("a parameter description is a %s, not a string", d.Kind)}
			}
			if e := v.Get("enum"); e.Truthy() && (e.Kind == listing.Number || e.Kind == listing.Bool) {
				return &CrashError{p + "/enum", fmt.Sprintf("enum is a %s, not an array", e.Kind)}
			}
		}
	}
	return nil
}

func findSurrogate(v *listing.Value, ptr string) string {
	switch v.Kind {
	case listing.String:
		if listing.HasLoneSurrogate(v.Str) {
			return ptr
		}
	case listing.Array:
		for i, it := range v.Items {
			if p := findSurrogate(it, fmt.Sprintf("%s/%d", ptr, i)); p != "" {
				return p
			}
		}
	case listing.Object:
		for _, m := range v.Members {
			p := ptr + listing.JoinPointer(m.Key)
			if listing.HasLoneSurrogate(m.Key) {
				return p
			}
			if p := findSurrogate(m.Value, p); p != "" {
				return p
			}
		}
	}
	return ""
}
