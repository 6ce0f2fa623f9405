// Package listing reads, holds, edits and writes MCP tool listings (the result of tools/list).
//
// Every tool is kept as ordered JSON (Value), so that an unedited listing encodes back to the
// JSON it came from: key order, unknown fields, numbers as written, non-ASCII text. Parse accepts
// every input shape the reference checker accepts (a JSON-RPC response, its result, a bare array of
// tools, text whose last SSE "data:" line holds the response) plus a single tool object and an
// array of several tools/list pages. Edits are operations at JSON pointers (see Op).
//
// The package uses the standard library only.
package listing

import (
	"crypto/sha256"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Shape names the form a listing was given in.
type Shape string

// The accepted shapes.
const (
	ShapeResponse Shape = "response" // a JSON-RPC response whose result holds the tools
	ShapeResult   Shape = "result"   // a tools/list result: {"tools": [...], ...}
	ShapeArray    Shape = "array"    // a bare array of tools
	ShapeTool     Shape = "tool"     // one tool object
	ShapePages    Shape = "pages"    // an array of tools/list pages (responses or results)
)

// Limits bound what Parse reads. The zero value means DefaultLimits.
type Limits struct {
	Bytes int // size of the input
	Tools int // number of tools
}

// DefaultLimits are generous for any real server (the largest public listings hold a few hundred
// tools and a few hundred kilobytes) while keeping a hostile input from exhausting memory.
var DefaultLimits = Limits{Bytes: 64 << 20, Tools: 20000}

// Options tune Parse.
type Options struct {
	// Name is how the input is called in messages (a file name, "-" for stdin, "the paste").
	Name   string
	Limits Limits
}

// Listing is a parsed tool listing.
type Listing struct {
	// Tools holds each tool, an object with a string "name".
	Tools []*Value
	// Envelope is the tools/list result object the tools came in (with its "tools" member), or
	// nil for a bare array or a single tool. It carries nextCursor and any unknown fields.
	Envelope *Value
	// Shape is the form the input had; SSE reports that it came as an SSE data line.
	Shape Shape
	SSE   bool
	// Doc is the whole document as parsed; Marshal re-emits it with the current tools.
	Doc *Value
	// Source is the text the positions in Doc refer to.
	Source []byte
	// Pages counts the tools/list pages merged into this listing (1 unless Shape is ShapePages).
	Pages int
}

// ErrorKind classifies a failure to read a listing.
type ErrorKind int

// The kinds of Error.
const (
	ErrEncoding ErrorKind = iota + 1 // not UTF-8
	ErrSyntax                        // malformed JSON (Err is a *SyntaxError)
	ErrNotJSON                       // neither JSON nor an SSE data line
	ErrRPC                           // a JSON-RPC error response
	ErrNoTools                       // no tools array in the document
	ErrBadTool                       // a tool that is not an object with a string name
	ErrLimit                         // over a size limit
)

// Error is a listing that cannot be read. Msg is worded as the reference checker words it where
// the reference has a word for it; Hint says what would work.
type Error struct {
	Kind    ErrorKind
	Msg     string
	Hint    string
	Pointer string // JSON pointer of the bad value, where there is one
	Offset  int    // byte offset in the source, or -1
	Err     error  // the underlying *SyntaxError or *EncodingError, if any
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Parse reads a listing from src in any accepted shape.
func Parse(src []byte, opts Options) (*Listing, error) {
	lim := opts.Limits
	if lim.Bytes == 0 {
		lim.Bytes = DefaultLimits.Bytes
	}
	if lim.Tools == 0 {
		lim.Tools = DefaultLimits.Tools
	}
	name := opts.Name
	if name == "" {
		name = "the input"
	}
	if len(src) > lim.Bytes {
		return nil, &Error{Kind: ErrLimit, Offset: -1,
			Msg:  fmt.Sprintf("%s is %d bytes; the workbench reads listings of up to %d bytes", name, len(src), lim.Bytes),
			Hint: "split the listing, or raise the limit if this really is one server's tools"}
	}
	if err := CheckUTF8(src); err != nil {
		return nil, &Error{Kind: ErrEncoding, Msg: err.Error(), Offset: err.(*EncodingError).Offset, Err: err,
			Hint: "save the file as UTF-8"}
	}
	l := &Listing{Source: src, Pages: 1}
	doc, err := ParseJSON(src)
	if err != nil {
		doc, err = parseSSE(src, err.(*SyntaxError), name)
		if err != nil {
			return nil, err
		}
		l.SSE = true
	}
	l.Doc = doc
	if err := l.locate(name); err != nil {
		return nil, err
	}
	if len(l.Tools) > lim.Tools {
		return nil, &Error{Kind: ErrLimit, Offset: -1,
			Msg:  fmt.Sprintf("%s holds %d tools; the workbench reads listings of up to %d tools", name, len(l.Tools), lim.Tools),
			Hint: "review the listing in parts"}
	}
	var bad []int
	for i, t := range l.Tools {
		if !t.IsObject() || !t.Get("name").IsString() {
			bad = append(bad, i)
		}
	}
	if len(bad) > 0 {
		return nil, &Error{Kind: ErrBadTool, Offset: l.Tools[bad[0]].Pos, Pointer: "/tools/" + strconv.Itoa(bad[0]),
			Msg:  fmt.Sprintf("%d entries of the tools array have no string `name`", len(bad)),
			Hint: "every tool is an object with a string \"name\""}
	}
	return l, nil
}

// parseSSE reads the last "data:" line of text, as the reference checker does with an SSE stream.
func parseSSE(src []byte, jsonErr *SyntaxError, name string) (*Value, error) {
	lines := splitLines(string(src))
	for i := len(lines) - 1; i >= 0; i-- {
		ln := lines[i]
		if !strings.HasPrefix(ln.text, "data:") {
			continue
		}
		payload := ln.text[5:]
		trimmed := strings.TrimLeftFunc(payload, pyIsSpace)
		lead := len(payload) - len(trimmed)
		trimmed = strings.TrimRightFunc(trimmed, pyIsSpace)
		v, err := ParseJSON([]byte(trimmed))
		if err != nil {
			se := err.(*SyntaxError)
			return nil, &Error{Kind: ErrSyntax, Msg: se.Error(), Offset: ln.start + 5 + lead + se.Offset, Err: se,
				Hint: "the last SSE data: line must hold one JSON-RPC message"}
		}
		shiftPositions(v, ln.start+5+lead)
		return v, nil
	}
	return nil, &Error{Kind: ErrNotJSON, Offset: jsonErr.Offset, Err: jsonErr,
		Msg:  fmt.Sprintf("%s holds neither JSON nor an SSE data line", name),
		Hint: "not JSON: " + jsonErr.Error()}
}

func shiftPositions(v *Value, by int) {
	if v.Pos >= 0 {
		v.Pos += by
	}
	for _, it := range v.Items {
		shiftPositions(it, by)
	}
	for i := range v.Members {
		if v.Members[i].KeyPos >= 0 {
			v.Members[i].KeyPos += by
		}
		shiftPositions(v.Members[i].Value, by)
	}
}

type line struct {
	text  string
	start int
}

// splitLines splits s at the line boundaries Python's str.splitlines recognises.
func splitLines(s string) []line {
	var out []line
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			out = append(out, line{s[start:i], start})
			i += size
			if r == '\r' && i < len(s) && s[i] == '\n' {
				i++
			}
			start = i
			continue
		}
		i += size
	}
	if start < len(s) {
		out = append(out, line{s[start:], start})
	}
	return out
}

// pyIsSpace is Python's str.isspace for one character.
func pyIsSpace(r rune) bool {
	switch {
	case r >= 0x09 && r <= 0x0d, r >= 0x1c && r <= 0x20, r == 0x85, r == 0xa0, r == 0x1680,
		r >= 0x2000 && r <= 0x200a, r == 0x2028, r == 0x2029, r == 0x202f, r == 0x205f, r == 0x3000:
		return true
	}
	return false
}

// locate finds the tools array in l.Doc and sets Tools, Envelope and Shape.
func (l *Listing) locate(name string) error {
	doc := l.Doc
	if doc.IsObject() && doc.Get("error") != nil {
		msg := string(PythonJSON(doc.Get("error"), false))
		if utf8.RuneCountInString(msg) > 160 {
			msg = string([]rune(msg)[:160])
		}
		return &Error{Kind: ErrRPC, Offset: doc.Get("error").Pos, Pointer: "/error",
			Msg:  "the response is a JSON-RPC error: " + msg,
			Hint: "the server answered tools/list with an error; fix the server or paste a successful response"}
	}
	data, shape := doc, ShapeResult
	if doc.IsObject() && doc.Get("result") != nil {
		data, shape = doc.Get("result"), ShapeResponse
	}
	if data.IsObject() {
		tools := data.Get("tools")
		if tools == nil && data.Get("name") != nil {
			l.Tools, l.Shape = []*Value{data}, ShapeTool
			return nil
		}
		if tools == nil || tools.Kind != Array {
			return noTools(name, data)
		}
		l.Tools, l.Envelope, l.Shape = tools.Items, data, shape
		return nil
	}
	if data.Kind != Array {
		return noTools(name, data)
	}
	if pages := asPages(data); pages != nil {
		var tools []*Value
		for _, p := range pages {
			tools = append(tools, p.Get("tools").Items...)
		}
		l.Tools, l.Envelope, l.Shape, l.Pages = tools, pages[len(pages)-1], ShapePages, len(pages)
		return nil
	}
	l.Tools, l.Shape = data.Items, ShapeArray
	return nil
}

func noTools(name string, data *Value) error {
	return &Error{Kind: ErrNoTools, Offset: data.Pos,
		Msg:  fmt.Sprintf("no tools array found in %s", name),
		Hint: `paste a tools/list response, its result ({"tools": [...]}), an array of tools or one tool`}
}

// asPages returns the results of an array of tools/list pages, or nil when arr is not one: every
// element a response or result holding a tools array, none of them a tool.
func asPages(arr *Value) []*Value {
	if len(arr.Items) == 0 {
		return nil
	}
	pages := make([]*Value, 0, len(arr.Items))
	for _, it := range arr.Items {
		if !it.IsObject() || it.Get("name") != nil {
			return nil
		}
		r := it
		if res := it.Get("result"); res != nil {
			r = res
		}
		if !r.IsObject() || r.Get("tools") == nil || r.Get("tools").Kind != Array {
			return nil
		}
		pages = append(pages, r)
	}
	return pages
}

// Names returns the tools' names in order.
func (l *Listing) Names() []string {
	out := make([]string, len(l.Tools))
	for i, t := range l.Tools {
		out[i] = t.Get("name").Str
	}
	return out
}

// NextCursor returns the result's nextCursor value, or nil.
func (l *Listing) NextCursor() *Value { return l.Envelope.Get("nextCursor") }

// Result returns the listing as a tools/list result object: the envelope it came in with its
// tools replaced by the current ones, or {"tools": [...]}.
func (l *Listing) Result() *Value {
	tools := NewArray(l.Tools...)
	if l.Envelope == nil || l.Shape == ShapePages {
		return NewObject(Member{Key: "tools", Value: tools, KeyPos: -1})
	}
	return withMember(l.Envelope, "tools", tools)
}

// Marshal encodes the listing in the shape it was read in, with its current tools. An unedited
// listing gives back its input, up to whitespace; pages come back merged into one result.
func (l *Listing) Marshal(indent string) []byte {
	var doc *Value
	switch l.Shape {
	case ShapeResponse:
		doc = withMember(l.Doc, "result", l.Result())
	case ShapeResult, ShapePages:
		doc = l.Result()
	case ShapeTool:
		if len(l.Tools) == 1 {
			doc = l.Tools[0]
		} else {
			doc = l.Result()
		}
	default:
		doc = NewArray(l.Tools...)
	}
	return Marshal(doc, indent)
}

// withMember returns a copy of obj whose key (its last occurrence) holds v, appended if absent.
func withMember(obj *Value, key string, v *Value) *Value {
	c := *obj
	c.Members = append([]Member(nil), obj.Members...)
	for i := len(c.Members) - 1; i >= 0; i-- {
		if c.Members[i].Key == key {
			c.Members[i].Value = v
			return &c
		}
	}
	c.Members = append(c.Members, Member{Key: key, Value: v, KeyPos: -1})
	return &c
}

// Hash is a content hash of a value as written, used to cache per-tool results.
type Hash [32]byte

// HashOf returns the content hash of v.
func HashOf(v *Value) Hash { return sha256.Sum256(Marshal(v, "")) }

// Clone returns a copy of l that shares its tool values (which are immutable).
func (l *Listing) Clone() *Listing {
	c := *l
	c.Tools = append([]*Value(nil), l.Tools...)
	return &c
}
