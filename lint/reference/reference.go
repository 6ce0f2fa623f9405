// Package reference is a faithful port of the lint half of the reference checker,
// shared/reference/tool_design_check.py: the same checks in the same order, worded the same way,
// so that `workbench check --rules reference` prints the reference's bytes. The ranking half is
// in package selection; the check command puts the two together.
package reference

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/words"
)

// Levels of a line.
const (
	Pass = "PASS"
	Warn = "WARN"
	Fail = "FAIL"
	Info = "INFO"
)

// The reference's thresholds.
const (
	Duplicate = 0.5 // Jaccard overlap of two descriptions that is reported as a near-duplicate
	Short     = 8   // fewer words cannot say both what a tool does and when to use it
)

// Line is one line of the reference's report.
type Line struct {
	Level  string `json:"level"`
	Check  string `json:"check"`         // as printed: "name-spec", "description:get_data"
	Rule   string `json:"rule"`          // the check without its tool: "description"
	Tool   int    `json:"tool"`          // index of the tool the line is about, or -1
	Detail string `json:"detail"`        // the text after the colon
	Ptr    string `json:"ptr,omitempty"` // JSON pointer of what the line is about
}

// String formats the line exactly as the reference prints it.
func (l Line) String() string {
	if l.Level == Info {
		return "INFO " + l.Detail
	}
	return l.Level + " " + l.Check + ": " + l.Detail
}

func line(ok bool, level, rule string, tool int, name, detail, ptr string) Line {
	check := rule
	if tool >= 0 {
		check = rule + ":" + name
	}
	if ok {
		level = Pass
	}
	return Line{Level: level, Check: check, Rule: rule, Tool: tool, Detail: detail, Ptr: ptr}
}

// Lint runs the reference's lint checks on l. Call Validate first: on input where the reference
// crashes, Lint's output is undefined. Its near-duplicate line is as a finding shows it: it
// reports groups where the reference's would list more than ShownPairs pairs (NearDups.Line).
func Lint(l *listing.Listing) []Line {
	lines, _, _ := LintContext(context.Background(), l)
	return lines
}

// LintContext is Lint that stops, with ctx's error wrapped, when ctx is done. It also returns
// the near-duplicate search behind the last line, whose Exact and Printed give the line as the
// reference prints it.
func LintContext(ctx context.Context, l *listing.Listing) ([]Line, *NearDups, error) {
	tools := l.Tools
	names := l.Names()
	out := make([]Line, 0, 8+6*len(tools))
	size := len(listing.PythonJSON(listing.NewArray(tools...), true))
	out = append(out, Line{Level: Info, Tool: -1,
		Detail: fmt.Sprintf("%d tools, %d bytes as compact JSON (a client sends this, in some form, to the model)", len(tools), size)})
	out = append(out, NameLines(l, names)...)
	descs := make([][]string, len(tools))
	for i, t := range tools {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, fmt.Errorf("reference checks: %w", err)
			}
		}
		out = append(out, ToolLines(i, t, names[i])...)
		descs[i] = DescriptionWords(t)
	}
	nd, err := FindNearDuplicates(ctx, names, descs)
	if err != nil {
		return nil, nil, fmt.Errorf("reference checks: %w", err)
	}
	return append(out, nd.Line()), nd, nil
}

// NameLines returns the listing-wide lines that come before the per-tool ones: pagination and
// the checks of names (names is l.Names()). Lint is NameLines, ToolLines for each tool and
// NearDuplicates, after an INFO line; the parts let a caller that caches per tool run only the
// listing-wide ones.
func NameLines(l *listing.Listing, names []string) []Line {
	out := make([]Line, 0, 6)
	cursor := l.NextCursor().Truthy()
	detail := "the listing has no further page"
	if cursor {
		detail = "nextCursor present: only the first page was read"
	}
	out = append(out, line(!cursor, Warn, "list-complete", -1, "", detail, ""))

	var bad []string
	for _, n := range names {
		if !nameOK(n) {
			bad = append(bad, listing.PythonRepr(n))
		}
	}
	detail = "all names are 1-128 characters from A-Z a-z 0-9 _ - ."
	if len(bad) > 0 {
		detail = "outside the allowed set: " + strings.Join(bad, ", ")
	}
	out = append(out, line(len(bad) == 0, Fail, "name-spec", -1, "", detail, ""))

	count := make(map[string]int, len(names))
	for _, n := range names {
		count[n]++
	}
	var dup []string
	for n, c := range count {
		if c > 1 {
			dup = append(dup, n)
		}
	}
	sort.Strings(dup)
	detail = "every name is unique"
	if len(dup) > 0 {
		detail = "repeated: " + strings.Join(dup, ", ")
	}
	out = append(out, line(len(dup) == 0, Fail, "name-unique", -1, "", detail, ""))

	// Each name's word parts serve the case-collision and the generic-name checks.
	toks := make([][]string, len(names))
	for i, n := range names {
		toks[i] = words.Tokens(n)
	}
	var order []string
	folded := make(map[string][]string, len(names))
	for i, n := range names {
		k := strings.Join(toks[i], "")
		if _, ok := folded[k]; !ok {
			order = append(order, k)
		}
		folded[k] = append(folded[k], n)
	}
	var clash []string
	for _, k := range order {
		if len(folded[k]) < 2 {
			continue
		}
		if u := uniqueSorted(folded[k]); len(u) > 1 {
			clash = append(clash, strings.Join(u, " / "))
		}
	}
	detail = "no two names differ only in case or separators"
	if len(clash) > 0 {
		detail = "differ only in case or separators: " + strings.Join(clash, "; ")
	}
	out = append(out, line(len(clash) == 0, Warn, "name-case-collision", -1, "", detail, ""))

	styleSet := map[string]bool{}
	for _, n := range names {
		if s := style(n); s != "" {
			styleSet[s] = true
		}
	}
	styles := sortedKeys(styleSet)
	if len(styles) < 2 {
		detail = "one naming style"
		if len(styles) == 1 {
			detail += " (" + styles[0] + ")"
		}
	} else {
		detail = "mixed styles: " + strings.Join(styles, ", ")
	}
	out = append(out, line(len(styles) < 2, Warn, "name-style", -1, "", detail, ""))

	var generic []string
	for i, n := range names {
		all := len(toks[i]) > 0
		for _, t := range toks[i] {
			if !words.Generic[t] {
				all = false
				break
			}
		}
		if all {
			generic = append(generic, n)
		}
	}
	detail = "every name says which object it works on"
	if len(generic) > 0 {
		detail = "names that never say which object: " + strings.Join(generic, ", ")
	}
	out = append(out, line(len(generic) == 0, Warn, "name-generic", -1, "", detail, ""))
	return out
}

// ToolLines returns the reference's lines about tool i (named n) alone, in order.
func ToolLines(i int, t *listing.Value, n string) []Line { return toolLines(i, t, n) }

// DescriptionWords returns the distinct content words of t's description (none when it is not a
// string), in no particular order: what NearDuplicates compares.
func DescriptionWords(t *listing.Value) []string {
	d := t.Get("description")
	if !d.IsString() {
		return nil
	}
	c := words.Content(d.Str)
	out := make([]string, 0, len(c))
	for w := range c {
		out = append(out, w)
	}
	// Sorted, so that two tools with one description have equal word lists (the engine then
	// knows a tool edited elsewhere than its description needs no near-duplicate recount).
	sort.Strings(out)
	return out
}

func toolLines(i int, t *listing.Value, n string) []Line {
	base := fmt.Sprintf("/tools/%d", i)
	schema := t.Get("inputSchema")
	ok := schema.IsObject()
	detail := "inputSchema is a JSON Schema object"
	if !ok {
		detail = "inputSchema must be an object, got " + pyTypeName(schema)
	}
	out := []Line{line(ok, Fail, "input-schema", i, n, detail, base+"/inputSchema")}
	if !ok {
		schema = nil
	}
	out = append(out, descriptionLine(i, t, n, base))
	out = append(out, paramLines(i, schema, n, base)...)
	if ln, ok := annotationsLine(i, t, n, base); ok {
		out = append(out, ln)
	}
	return out
}

// descriptionLine is the check of the description's word count.
func descriptionLine(i int, t *listing.Value, n, base string) Line {
	desc := t.Get("description")
	nw := 0
	if desc.IsString() {
		words.Each(desc.Str, func(string) { nw++ }) // a count: the words of a long text need not be kept
	}
	var detail string
	switch {
	case nw >= Short:
		detail = fmt.Sprintf("%d words", nw)
	case nw == 0:
		detail = "no description"
	default:
		detail = fmt.Sprintf("%d words, fewer than %d", nw, Short)
	}
	return line(nw >= Short, Warn, "description", i, n, detail, base+"/description")
}

// paramLines are the checks of the input schema's parameters (schema is nil when it is not an
// object).
func paramLines(i int, schema *listing.Value, n, base string) []Line {
	var out []Line
	var props []listing.Member
	if p := schema.Get("properties"); p.IsObject() {
		props = p.Fields()
	}
	var loose, opaque []string
	for _, m := range props {
		v := m.Value
		if !v.IsObject() || !(v.Get("description").Truthy() || v.Has("enum") || v.Has("const")) {
			loose = append(loose, m.Key)
		}
		if v.IsObject() && v.Get("type").IsString() && v.Get("type").Str == "object" && !v.Get("properties").Truthy() {
			opaque = append(opaque, m.Key)
		}
	}
	detail := "every parameter has a description, enum or const"
	if len(loose) > 0 {
		detail = "no description or enum: " + strings.Join(loose, ", ")
	}
	out = append(out, line(len(loose) == 0, Warn, "params-described", i, n, detail, base+"/inputSchema/properties"))
	if len(props) > 0 {
		has := schema.Has("required")
		detail = "required is declared"
		if !has {
			detail = "no `required` (use an empty list when all are optional)"
		}
		out = append(out, line(has, Warn, "params-required", i, n, detail, base+"/inputSchema"))
	}
	detail = "no free-form object parameter"
	if len(opaque) > 0 {
		detail = "object parameter without `properties`: " + strings.Join(opaque, ", ")
	}
	out = append(out, line(len(opaque) == 0, Warn, "params-opaque", i, n, detail, base+"/inputSchema/properties"))
	if len(props) == 0 {
		ap := schema.Get("additionalProperties")
		closed := ap != nil && ap.Kind == listing.Bool && !ap.Bool
		detail = "closed with additionalProperties: false"
		if !closed {
			detail = "a tool without parameters should say additionalProperties: false"
		}
		out = append(out, line(closed, Warn, "no-params-closed", i, n, detail, base+"/inputSchema"))
	}
	return out
}

// annotationsLine is the check of the hints the name's first read or write verb asks for; ok
// is false when the name has no such verb.
func annotationsLine(i int, t *listing.Value, n, base string) (ln Line, ok bool) {
	verb := ""
	for _, w := range words.Tokens(n) {
		if words.WriteVerbs[w] || words.ReadVerbs[w] {
			verb = w
			break
		}
	}
	if verb == "" {
		return Line{}, false
	}
	hints := t.Get("annotations")
	if !hints.IsObject() {
		hints = nil
	}
	want := []string{"readOnlyHint"}
	if words.WriteVerbs[verb] {
		want = []string{"readOnlyHint", "destructiveHint"}
	}
	done := false
	for _, k := range want {
		if hints.Has(k) {
			done = true
		}
	}
	detail := strings.Join(want, " or ") + " is set"
	if !done {
		detail = "`" + strings.Join(want, "` or `") + "` is not set; the schema default says the tool may modify and be destructive"
	}
	return line(done, Warn, "annotations", i, n, detail, base+"/annotations"), true
}

// Overlap is two tools, I before J, whose descriptions share Shared of their Union distinct
// content words.
type Overlap struct{ I, J, Shared, Union int }

// NearDuplicate reports whether the reference lists the pair: tools of different names whose
// descriptions share Duplicate of their words or more.
func (o Overlap) NearDuplicate(names []string) bool {
	return names[o.I] != names[o.J] && o.Union > 0 && float64(o.Shared)/float64(o.Union) >= Duplicate
}

// nameOK matches ^[A-Za-z0-9_.-]{1,128}$ as Python's re does, where $ also matches before a
// final newline.
func nameOK(n string) bool {
	n = strings.TrimSuffix(n, "\n")
	if len(n) < 1 || len(n) > 128 {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

func style(name string) string {
	switch {
	case strings.Contains(name, "_"):
		return "snake_case"
	case strings.Contains(name, "-"):
		return "kebab-case"
	case strings.Contains(name, "."):
		return "dotted"
	}
	for i := 0; i+1 < len(name); i++ {
		if name[i] >= 'a' && name[i] <= 'z' && name[i+1] >= 'A' && name[i+1] <= 'Z' {
			return "camelCase"
		}
	}
	return ""
}

func uniqueSorted(xs []string) []string {
	m := map[string]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return sortedKeys(m)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// pyTypeName is Python's type(x).__name__ for a decoded JSON value.
func pyTypeName(v *listing.Value) string {
	if v == nil {
		return "NoneType"
	}
	switch v.Kind {
	case listing.Null:
		return "NoneType"
	case listing.Bool:
		return "bool"
	case listing.Number:
		if strings.ContainsAny(v.Str, ".eEN") || strings.HasSuffix(v.Str, "Infinity") {
			return "float"
		}
		return "int"
	case listing.String:
		return "str"
	case listing.Array:
		return "list"
	default:
		return "dict"
	}
}

// Counts returns how many lines pass, warn and fail.
func Counts(lines []Line) (pass, warn, fail int) {
	for _, l := range lines {
		switch l.Level {
		case Pass:
			pass++
		case Warn:
			warn++
		case Fail:
			fail++
		}
	}
	return pass, warn, fail
}

// Style is the naming style name-style sees in name: snake_case, kebab-case, dotted, camelCase,
// or "" for a name that fits any (one lower-case word).
func Style(name string) string { return style(name) }
