package export

import (
	"context"
	"encoding/json"
	"fmt"
	"go/format"
	"go/token"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tool-workbench/workbench/listing"
)

// SDKModule and SDKVersion name the MCP Go SDK the generated code is written for. The rules in
// this file (which members it can send, which it changes) were read from that version's source;
// a test builds the generated code against the version in go.mod and checks them.
const (
	SDKModule  = "github.com/modelcontextprotocol/go-sdk"
	SDKVersion = "v1.8.0"
)

// Difference names one way the SDK's tools/list answer differs from the listing it was
// generated from: something the listing says that the SDK's types cannot say.
type Difference string

// The differences. Each Warning carries one, with the JSON pointer (into the exported listing)
// of what it changes.
const (
	// DiffOrder: the SDK lists tools sorted by name, not in the order they were added.
	// Pointer: "/tools".
	DiffOrder Difference = "order"
	// DiffHintDefault: ToolAnnotations.ReadOnlyHint and IdempotentHint are plain bools, so an
	// unset (or null) hint is sent as false. Pointer: the hint's place.
	DiffHintDefault Difference = "hint-default"
	// DiffMemberOrder: the members of a tool, its annotations and its icons come in the order of
	// the SDK's struct fields, and _meta's keys sorted. Pointer: the reordered object.
	DiffMemberOrder Difference = "member-order"
	// DiffDropped: a member the SDK's types have no field for (or a null it cannot send) is
	// left out. Pointer: the dropped member.
	DiffDropped Difference = "dropped"
	// DiffEmptyOmitted: an empty string, array or object in a field the SDK marks omitempty is
	// left out. Pointer: the omitted member.
	DiffEmptyOmitted Difference = "empty-omitted"
	// DiffEnvelope: the members of the tools/list result other than tools (nextCursor,
	// resultType, ttlMs, _meta …) are the SDK's own, not the listing's. Pointer: "/" + the key.
	DiffEnvelope Difference = "envelope"
	// DiffNone marks a warning that changes nothing in the answer, such as a tool name the SDK
	// logs as invalid but still serves.
	DiffNone Difference = "notice"
)

// Summary says in a few words what a kind of difference does, for reports of the warnings.
func (d Difference) Summary() string {
	switch d {
	case DiffOrder:
		return "go-sdk lists the tools sorted by name, not in the listing's order"
	case DiffHintDefault:
		return "unset readOnlyHint/idempotentHint sent as false"
	case DiffMemberOrder:
		return "objects whose members go-sdk writes in its own order"
	case DiffDropped:
		return "members go-sdk has no field for, left out"
	case DiffEmptyOmitted:
		return "empty optional values left out"
	case DiffEnvelope:
		return "result members (besides tools) that go-sdk writes itself"
	case DiffNone:
		return "notes"
	}
	return string(d)
}

// Warning is something the generated code cannot reproduce exactly, or a note on it.
type Warning struct {
	Kind    Difference
	Tool    string // the tool's name; "" for the listing as a whole
	Pointer string // JSON pointer into the exported listing
	Message string
}

func (w Warning) String() string {
	if w.Tool == "" {
		return w.Message
	}
	return fmt.Sprintf("tool %q: %s", w.Tool, w.Message)
}

// Problem is a part of the listing that go-sdk refuses to register or to send.
type Problem struct {
	Tool    string
	Pointer string
	Msg     string
}

// GoError lists every problem that keeps the listing from being exported as Go.
type GoError struct{ Problems []Problem }

func (e *GoError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d problem(s) keep this listing from being registered with %s %s:", len(e.Problems), SDKModule, SDKVersion)
	for i, p := range e.Problems {
		if i == 10 {
			fmt.Fprintf(&b, "; and %d more", len(e.Problems)-i)
			break
		}
		fmt.Fprintf(&b, "; tool %q at %s: %s", p.Tool, p.Pointer, p.Msg)
	}
	b.WriteString(" (fix these in the listing, for example with workbench check, and export again)")
	return b.String()
}

// GoOptions tune the generated code.
type GoOptions struct {
	// Package is the package clause; "tools" when empty. With Main it must be "" or "main".
	Package string
	// Main adds a main function that serves the tools on stdio, making the file a runnable
	// server; the package is then main.
	Main bool
	// Source names the listing in the file's comment (a file name, a URL).
	Source string
	// ServerName is the implementation name main announces; "workbench-export" when empty.
	ServerName string
}

// sdkToolOrder is the order in which encoding/json writes mcp.Tool's fields.
var sdkToolOrder = []string{"_meta", "annotations", "description", "inputSchema", "name", "outputSchema", "title", "icons"}

// sdkAnnotationOrder is the order of mcp.ToolAnnotations' fields.
var sdkAnnotationOrder = []string{"destructiveHint", "idempotentHint", "openWorldHint", "readOnlyHint", "title"}

// sdkIconOrder is the order of mcp.Icon's fields.
var sdkIconOrder = []string{"src", "mimeType", "sizes", "theme"}

// goTool is one tool as the generated code registers it.
type goTool struct {
	name        string
	ident       string // handler function
	title       string
	description string
	input       []byte // raw JSON, nil when absent
	output      []byte
	ann         *mcp.ToolAnnotations
	icons       []mcp.Icon
	meta        []metaEntry
	notes       []Warning
}

type metaEntry struct {
	key string
	raw []byte
}

// Go writes a gofmt-ed Go file that registers every tool of l with go-sdk, each with a handler
// stub that answers with a tool error. It returns the warnings (what the SDK's answer will
// differ in) and a *GoError when the SDK would refuse the listing.
func Go(l *listing.Listing, opts GoOptions) ([]byte, []Warning, error) {
	pkg := opts.Package
	if opts.Main {
		if pkg != "" && pkg != "main" {
			return nil, nil, fmt.Errorf("export go: a runnable server (main) must be package main, not %q", pkg)
		}
		pkg = "main"
	}
	if pkg == "" {
		pkg = "tools"
	}
	if !token.IsIdentifier(pkg) || pkg == "_" {
		return nil, nil, fmt.Errorf("export go: package name %q is not a Go identifier (use letters, digits and _, not starting with a digit)", pkg)
	}
	tools, warns, probs := buildTools(l)
	if len(probs) == 0 {
		probs = dryRun(tools, &warns)
	}
	if len(probs) > 0 {
		return nil, warns, &GoError{Problems: probs}
	}
	src := writeGo(tools, warns, pkg, opts)
	out, err := format.Source(src)
	if err != nil {
		// The generator wrote invalid Go: a bug here, not in the listing.
		return nil, warns, fmt.Errorf("export go: generated code does not parse (a workbench bug; please report it with the listing): %w", err)
	}
	return out, warns, nil
}

// buildTools reads every tool into what the SDK's types can hold, noting what they cannot.
func buildTools(l *listing.Listing) ([]*goTool, []Warning, []Problem) {
	var warns []Warning
	var probs []Problem
	seen := map[string]int{}
	idents := map[string]bool{}
	tools := make([]*goTool, 0, len(l.Tools))
	for i, t := range l.Tools {
		name := t.Get("name").Str
		base := "/tools/" + strconv.Itoa(i)
		if j, dup := seen[name]; dup {
			probs = append(probs, Problem{name, base + "/name", fmt.Sprintf("the name is also used by tool %d; go-sdk keeps only the last tool registered under a name", j+1)})
			continue
		}
		seen[name] = i
		gt, w, p := buildTool(t, name, base)
		gt.ident = handlerIdent(name, i, idents)
		gt.notes = w
		warns = append(warns, w...)
		probs = append(probs, p...)
		tools = append(tools, gt)
	}
	if l.Envelope != nil {
		for _, m := range l.Envelope.Fields() {
			if m.Key != "tools" {
				warns = append(warns, Warning{Kind: DiffEnvelope, Pointer: "/" + escapeToken(m.Key),
					Message: fmt.Sprintf("the result member %q is not the listing's to set: go-sdk writes the tools/list result's own members", m.Key)})
			}
		}
	}
	if !slices.IsSortedFunc(tools, func(a, b *goTool) int { return strings.Compare(a.name, b.name) }) {
		warns = append([]Warning{{Kind: DiffOrder, Pointer: "/tools",
			Message: "go-sdk lists tools sorted by name, not in the listing's order"}}, warns...)
	}
	return tools, warns, probs
}

func buildTool(t *listing.Value, name, base string) (*goTool, []Warning, []Problem) {
	gt := &goTool{name: name}
	var warns []Warning
	var probs []Problem
	warn := func(k Difference, ptr, msg string) {
		warns = append(warns, Warning{Kind: k, Tool: name, Pointer: ptr, Message: msg})
	}
	prob := func(ptr, msg string) { probs = append(probs, Problem{name, ptr, msg}) }
	if listing.HasLoneSurrogate(name) {
		prob(base+"/name", "the name holds a lone UTF-16 surrogate, which a Go string cannot send")
	}
	var kept []string
	for _, m := range t.Fields() {
		ptr := base + "/" + escapeToken(m.Key)
		v := m.Value
		if v.Kind == listing.Null && m.Key != "name" && m.Key != "inputSchema" {
			if slices.Contains(sdkToolOrder, m.Key) {
				warn(DiffDropped, ptr, fmt.Sprintf("%s is null; go-sdk leaves it out", m.Key))
			} else {
				warn(DiffDropped, ptr, fmt.Sprintf("go-sdk's mcp.Tool has no field for %q; it is left out", m.Key))
			}
			continue
		}
		switch m.Key {
		case "name":
			kept = append(kept, m.Key)
		case "title", "description":
			s, ok := stringField(v, ptr, m.Key, &probs, name)
			if !ok {
				continue
			}
			if s == "" {
				warn(DiffEmptyOmitted, ptr, fmt.Sprintf("%s is empty; go-sdk leaves an empty %s out", m.Key, m.Key))
				continue
			}
			if m.Key == "title" {
				gt.title = s
			} else {
				gt.description = s
			}
			kept = append(kept, m.Key)
		case "inputSchema", "outputSchema":
			raw, ok := rawJSON(v, ptr, &probs, name)
			if !ok {
				continue
			}
			if m.Key == "inputSchema" {
				gt.input = raw
			} else {
				gt.output = raw
			}
			kept = append(kept, m.Key)
		case "annotations":
			ann, w, p := buildAnnotations(v, name, ptr)
			warns = append(warns, w...)
			probs = append(probs, p...)
			if ann != nil {
				gt.ann = ann
				kept = append(kept, m.Key)
			}
		case "_meta":
			if !v.IsObject() {
				prob(ptr, fmt.Sprintf("_meta is %s %s; go-sdk's mcp.Meta is an object", article(v.Kind), v.Kind))
				continue
			}
			fields := v.Fields()
			if len(fields) == 0 {
				warn(DiffEmptyOmitted, ptr, "_meta is empty; go-sdk leaves an empty _meta out")
				continue
			}
			keys := make([]string, 0, len(fields))
			for _, f := range fields {
				raw, ok := rawJSON(f.Value, ptr+"/"+escapeToken(f.Key), &probs, name)
				if ok {
					gt.meta = append(gt.meta, metaEntry{f.Key, raw})
					keys = append(keys, f.Key)
				}
			}
			if !slices.IsSorted(keys) {
				warn(DiffMemberOrder, ptr, "go-sdk's mcp.Meta is a map: its keys come sorted")
			}
			kept = append(kept, m.Key)
		case "icons":
			icons, w, p := buildIcons(v, name, ptr)
			warns = append(warns, w...)
			probs = append(probs, p...)
			if len(icons) > 0 {
				gt.icons = icons
				kept = append(kept, m.Key)
			}
		default:
			warn(DiffDropped, ptr, fmt.Sprintf("go-sdk's mcp.Tool has no field for %q; it is left out", m.Key))
		}
	}
	if !inOrder(kept, sdkToolOrder) {
		warn(DiffMemberOrder, base, "go-sdk writes a tool's members in its own order: "+strings.Join(sdkToolOrder, ", "))
	}
	return gt, warns, probs
}

func buildAnnotations(v *listing.Value, name, ptr string) (*mcp.ToolAnnotations, []Warning, []Problem) {
	var warns []Warning
	var probs []Problem
	if !v.IsObject() {
		return nil, nil, []Problem{{name, ptr, fmt.Sprintf("annotations is %s %s; go-sdk's mcp.ToolAnnotations is an object", article(v.Kind), v.Kind)}}
	}
	warn := func(k Difference, p, msg string) {
		warns = append(warns, Warning{Kind: k, Tool: name, Pointer: p, Message: msg})
	}
	ann := &mcp.ToolAnnotations{}
	var kept []string
	set := map[string]bool{}
	for _, m := range v.Fields() {
		p := ptr + "/" + escapeToken(m.Key)
		val := m.Value
		// go-sdk writes a hint whose default is false (listing.Hints) as a plain bool, where
		// unset and false are one, and a hint whose default is true as a *bool, so that false
		// can be said.
		def, hint := listing.HintDefault(m.Key)
		switch {
		case hint && !def:
			if val.Kind == listing.Null {
				warn(DiffHintDefault, p, m.Key+" is null; go-sdk sends it as false")
				set[m.Key] = true
				kept = append(kept, m.Key)
				continue
			}
			if val.Kind != listing.Bool {
				probs = append(probs, Problem{name, p, fmt.Sprintf("%s is %s %s; go-sdk's hint is a boolean", m.Key, article(val.Kind), val.Kind)})
				continue
			}
			if m.Key == "readOnlyHint" {
				ann.ReadOnlyHint = val.Bool
			} else {
				ann.IdempotentHint = val.Bool
			}
			set[m.Key] = true
			kept = append(kept, m.Key)
		case hint:
			if val.Kind == listing.Null {
				warn(DiffDropped, p, m.Key+" is null; go-sdk leaves it out")
				continue
			}
			if val.Kind != listing.Bool {
				probs = append(probs, Problem{name, p, fmt.Sprintf("%s is %s %s; go-sdk's hint is a boolean", m.Key, article(val.Kind), val.Kind)})
				continue
			}
			b := val.Bool
			if m.Key == "destructiveHint" {
				ann.DestructiveHint = &b
			} else {
				ann.OpenWorldHint = &b
			}
			kept = append(kept, m.Key)
		case m.Key == "title":
			if val.Kind == listing.Null {
				warn(DiffDropped, p, "annotations.title is null; go-sdk leaves it out")
				continue
			}
			s, ok := stringField(val, p, "annotations.title", &probs, name)
			if !ok {
				continue
			}
			if s == "" {
				warn(DiffEmptyOmitted, p, "annotations.title is empty; go-sdk leaves an empty title out")
				continue
			}
			ann.Title = s
			kept = append(kept, m.Key)
		default:
			warn(DiffDropped, p, fmt.Sprintf("go-sdk's mcp.ToolAnnotations has no field for %q; it is left out", m.Key))
		}
	}
	for _, h := range listing.Hints {
		if !h.Default && !set[h.Key] {
			warn(DiffHintDefault, ptr+"/"+h.Key, h.Key+" is unset; go-sdk sends it as false")
			kept = append(kept, h.Key)
		}
	}
	if !inOrder(kept, sdkAnnotationOrder) {
		warn(DiffMemberOrder, ptr, "go-sdk writes annotations in its own order: "+strings.Join(sdkAnnotationOrder, ", "))
	}
	return ann, warns, probs
}

func buildIcons(v *listing.Value, name, ptr string) ([]mcp.Icon, []Warning, []Problem) {
	if v.Kind != listing.Array {
		return nil, nil, []Problem{{name, ptr, fmt.Sprintf("icons is %s %s; go-sdk's icons are an array", article(v.Kind), v.Kind)}}
	}
	var warns []Warning
	var probs []Problem
	if len(v.Items) == 0 {
		return nil, []Warning{{DiffEmptyOmitted, name, ptr, "icons is empty; go-sdk leaves an empty icons array out"}}, nil
	}
	icons := make([]mcp.Icon, 0, len(v.Items))
	for i, it := range v.Items {
		ip := ptr + "/" + strconv.Itoa(i)
		if !it.IsObject() {
			probs = append(probs, Problem{name, ip, fmt.Sprintf("the icon is %s %s; go-sdk's mcp.Icon is an object", article(it.Kind), it.Kind)})
			continue
		}
		var ic mcp.Icon
		var kept []string
		hasSrc := false
		for _, m := range it.Fields() {
			p := ip + "/" + escapeToken(m.Key)
			val := m.Value
			switch m.Key {
			case "src", "mimeType", "theme":
				if val.Kind == listing.Null && m.Key != "src" {
					warns = append(warns, Warning{DiffDropped, name, p, m.Key + " is null; go-sdk leaves it out"})
					continue
				}
				s, ok := stringField(val, p, "icon "+m.Key, &probs, name)
				if !ok {
					continue
				}
				switch m.Key {
				case "src":
					ic.Source, hasSrc = s, true
				case "mimeType":
					ic.MIMEType = s
				default:
					ic.Theme = mcp.IconTheme(s)
				}
				if s == "" && m.Key != "src" {
					warns = append(warns, Warning{DiffEmptyOmitted, name, p, m.Key + " is empty; go-sdk leaves it out"})
					continue
				}
				kept = append(kept, m.Key)
			case "sizes":
				if val.Kind == listing.Null {
					warns = append(warns, Warning{DiffDropped, name, p, "sizes is null; go-sdk leaves it out"})
					continue
				}
				if val.Kind != listing.Array {
					probs = append(probs, Problem{name, p, "sizes is not an array of strings"})
					continue
				}
				sizes := []string{}
				for j, s := range val.Items {
					str, ok := stringField(s, p+"/"+strconv.Itoa(j), "a size", &probs, name)
					if ok {
						sizes = append(sizes, str)
					}
				}
				if len(sizes) == 0 {
					warns = append(warns, Warning{DiffEmptyOmitted, name, p, "sizes is empty; go-sdk leaves it out"})
					continue
				}
				ic.Sizes = sizes
				kept = append(kept, m.Key)
			default:
				warns = append(warns, Warning{DiffDropped, name, p, fmt.Sprintf("go-sdk's mcp.Icon has no field for %q; it is left out", m.Key)})
			}
		}
		if !hasSrc {
			probs = append(probs, Problem{name, ip, "the icon has no string src, which go-sdk always sends"})
			continue
		}
		if !inOrder(kept, sdkIconOrder) {
			warns = append(warns, Warning{DiffMemberOrder, name, ip, "go-sdk writes an icon's members in its own order: " + strings.Join(sdkIconOrder, ", ")})
		}
		icons = append(icons, ic)
	}
	return icons, warns, probs
}

// stringField returns v's text, or records a problem when v is not a string the SDK can send.
func stringField(v *listing.Value, ptr, what string, probs *[]Problem, tool string) (string, bool) {
	if v.Kind != listing.String {
		*probs = append(*probs, Problem{tool, ptr, fmt.Sprintf("%s is %s %s; go-sdk holds it in a Go string", what, article(v.Kind), v.Kind)})
		return "", false
	}
	if listing.HasLoneSurrogate(v.Str) {
		*probs = append(*probs, Problem{tool, ptr, what + " holds a lone UTF-16 surrogate, which Go's encoding/json would send as U+FFFD"})
		return "", false
	}
	return v.Str, true
}

// rawJSON encodes v for a json.RawMessage, refusing what encoding/json will not pass through.
func rawJSON(v *listing.Value, ptr string, probs *[]Problem, tool string) ([]byte, bool) {
	raw := listing.Marshal(v, "")
	if !json.Valid(raw) {
		// Only Python's NaN and Infinity get this far: the listing parser accepts them.
		*probs = append(*probs, Problem{tool, ptr, "holds NaN or Infinity, which is not JSON; encoding/json refuses to send it (write it as a string or a large number)"})
		return nil, false
	}
	return raw, true
}

func article(k listing.Kind) string {
	if k == listing.Array || k == listing.Object {
		return "an"
	}
	return "a"
}

// inOrder reports whether keys follow the order of ref (every key is in ref).
func inOrder(keys, ref []string) bool {
	last := -1
	for _, k := range keys {
		i := slices.Index(ref, k)
		if i < last {
			return false
		}
		last = i
	}
	return true
}

func escapeToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// maxIdentLetters bounds what a handler's identifier takes from its tool's name: a name of
// megabytes (go-sdk warns of names past 128 characters but serves them) would otherwise make an
// identifier as long, which go/format then holds several times over.
const maxIdentLetters = 64

// handlerIdent makes a Go identifier for the tool's handler from its name: handle + the name's
// ASCII letter and digit runs in camel case (at most maxIdentLetters of them), numbered when two
// names give the same identifier.
func handlerIdent(name string, i int, taken map[string]bool) string {
	var b strings.Builder
	b.WriteString("handle")
	upper := true
	for _, r := range name {
		if b.Len() >= len("handle")+maxIdentLetters {
			break
		}
		isAlnum := r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		if !isAlnum {
			upper = true
			continue
		}
		if upper {
			r = []rune(strings.ToUpper(string(r)))[0]
			upper = false
		}
		b.WriteRune(r)
	}
	id := b.String()
	if id == "handle" {
		id = "handleTool" + strconv.Itoa(i+1)
	}
	cand := id
	for n := 2; taken[cand]; n++ {
		cand = id + "_" + strconv.Itoa(n)
	}
	taken[cand] = true
	return cand
}

// maxLogMessage bounds a go-sdk log message kept as a warning (and a comment in the code).
const maxLogMessage = 400

// dryRun registers the tools, as the generated code will, on a server that is never run: go-sdk
// panics on a tool it refuses (no input schema, an input schema not of type "object", a bad
// x-mcp-header) and logs a tool name it considers invalid. Both are reported here rather than
// when the generated server starts.
func dryRun(tools []*goTool, warns *[]Warning) []Problem {
	logs := &collect{}
	s := mcp.NewServer(&mcp.Implementation{Name: "workbench-export-check", Version: "0"},
		&mcp.ServerOptions{Logger: slog.New(logs)})
	var probs []Problem
	for _, gt := range tools {
		t := gt.sdkTool()
		logs.msgs = logs.msgs[:0]
		func() {
			defer func() {
				if r := recover(); r != nil {
					probs = append(probs, Problem{gt.name, "", fmt.Sprintf("go-sdk refuses the tool: %v", r)})
				}
			}()
			s.AddTool(t, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
		}()
		for _, m := range logs.msgs {
			// go-sdk's message quotes the whole name, which may be megabytes long.
			if len(m) > maxLogMessage {
				m = strings.ToValidUTF8(m[:maxLogMessage], "") + "…"
			}
			w := Warning{Kind: DiffNone, Tool: gt.name, Message: "go-sdk logs an error when registering it (it still serves the tool): " + m}
			*warns = append(*warns, w)
			gt.notes = append(gt.notes, w)
		}
	}
	return probs
}

// sdkTool builds the mcp.Tool the generated code builds.
func (gt *goTool) sdkTool() *mcp.Tool {
	t := &mcp.Tool{Name: gt.name, Title: gt.title, Description: gt.description, Annotations: gt.ann, Icons: gt.icons}
	if gt.input != nil {
		t.InputSchema = json.RawMessage(gt.input)
	}
	if gt.output != nil {
		t.OutputSchema = json.RawMessage(gt.output)
	}
	if gt.meta != nil {
		t.Meta = mcp.Meta{}
		for _, e := range gt.meta {
			t.Meta[e.key] = json.RawMessage(e.raw)
		}
	}
	return t
}

// collect is a slog.Handler that keeps the messages of error records; it lets the dry run turn
// what go-sdk would log into warnings.
type collect struct{ msgs []string }

func (c *collect) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelError }
func (c *collect) Handle(_ context.Context, r slog.Record) error {
	c.msgs = append(c.msgs, r.Message)
	return nil
}
func (c *collect) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c *collect) WithGroup(string) slog.Handler      { return c }

func orderNote(reordered bool) string {
	if reordered {
		return ", and the tools reordered by name"
	}
	return ""
}

// commentText keeps a comment on one line and visible whatever the text holds: line breaks
// and invisible or direction-changing characters are written as escapes.
func commentText(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == ' ' || r != utf8.RuneError && strconv.IsPrint(r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRuneToASCII(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

// rawLiteral writes JSON for a json.RawMessage: indented in a raw string where that is safe and
// the JSON is long (the SDK compacts it when it sends it, so the indentation is free), compact
// in a quoted string otherwise. depth is the indentation of the surrounding code.
func rawLiteral(raw []byte, depth int) string {
	if len(raw) <= 72 && rawSafe(string(raw)) {
		return "json.RawMessage(`" + string(raw) + "`)"
	}
	if v, err := listing.ParseJSON(raw); err == nil {
		pretty := string(listing.Marshal(v, "\t"))
		if rawSafe(pretty) {
			pad := strings.Repeat("\t", depth)
			return "json.RawMessage(`" + strings.ReplaceAll(pretty, "\n", "\n"+pad) + "`)"
		}
	}
	return "json.RawMessage(" + strconv.Quote(string(raw)) + ")"
}

// goString writes s as a Go string literal that reads back as s: a raw string when that is safe
// and reads better (text with quotes, backslashes or line breaks), strconv.Quote otherwise.
func goString(s string) string {
	if strings.ContainsAny(s, "\"\\\n") && rawSafe(s) {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}

// rawSafe reports whether s can stand in a raw string literal unchanged and visible: no
// backquote, no carriage return (the compiler drops it from raw strings), no invalid UTF-8 and
// nothing invisible or direction-changing (which would hide what the code says).
func rawSafe(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		switch {
		case r == '`' || r == '\r':
			return false
		case r == '\n' || r == '\t':
		case !strconv.IsPrint(r):
			return false
		}
	}
	return true
}
