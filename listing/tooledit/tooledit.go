// Package tooledit makes the tool-level edits of the workbench's editor out of listing ops: a
// new value for one field of a tool, for one member of a parameter's schema, and adding,
// removing or moving a tool or a parameter.
//
// An Edit is data, not a function: the same Edit is made once from the listing a page was
// drawn from, to answer a mistake at once, and again from the head listing under the store's
// write lock when someone else's change landed in between, so that a change that rewrites a
// value from what it holds (a schema, on a parameter's rename) never undoes another's edit.
package tooledit

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tool-workbench/workbench/listing"
)

// Kind is what an Edit changes.
type Kind int

// The kinds of Edit.
const (
	// Field sets one field of tool Tool: Name is "name", "title", "description",
	// "inputSchema", "outputSchema" or "ann-" and a behaviour hint (listing.Hints).
	Field Kind = iota
	// Param sets member Name ("name", "required", "type", "description", "format", "minimum",
	// "maximum", "default", "enum") of parameter Param of tool Tool.
	Param
	// ParamOp adds a parameter to tool Tool, or removes or moves its parameter Param (Verb
	// "add", "del", "up", "down").
	ParamOp
	// ToolOp adds a tool, or duplicates, removes or moves tool Tool (Verb "add", "dup",
	// "del", "up", "down").
	ToolOp
)

// Edit is one change a person makes in the editor, by position.
type Edit struct {
	Kind  Kind
	Tool  int
	Param int
	Name  string // the field (Field) or the member of the parameter's schema (Param)
	Verb  string // ParamOp and ToolOp
	Value string // the new value, as the page sent it (Field and Param)
}

// Problem is an edit the person has to correct; its text is shown next to the field, at a
// line and column of the value when they are known (a schema that is not JSON).
type Problem struct {
	Msg    string
	Line   int
	Column int
}

func (p *Problem) Error() string { return p.Msg }

// Key names what e changes for undo ("tools/3/description", "tools/3/param/1/type"):
// consecutive edits by one person with the same key are one step of their undo. Edits that
// reshape a tool or the listing have none.
func (e Edit) Key() string {
	switch e.Kind {
	case Field:
		return fmt.Sprintf("tools/%d/%s", e.Tool, e.Name)
	case Param:
		return fmt.Sprintf("tools/%d/param/%d/%s", e.Tool, e.Param, e.Name)
	}
	return ""
}

// NamesTool reports whether e acts on an existing tool, at e.Tool: every edit but adding a
// tool, which goes at the end, wherever that is.
func (e Edit) NamesTool() bool { return !(e.Kind == ToolOp && e.Verb == "add") }

// Make returns the ops of e on l, and the tool to show after it (e.Tool but for a tool added,
// duplicated, removed or moved). No ops and no error: e changes nothing. A *Problem is a
// mistake to show the person; any other error a request no page sends.
func (e Edit) Make(l *listing.Listing) (ops []listing.Op, sel int, err error) {
	if e.Kind == ToolOp {
		return toolOps(l, e.Verb, e.Tool)
	}
	if e.Tool < 0 || e.Tool >= len(l.Tools) {
		return nil, e.Tool, ToolGone(e.Tool, len(l.Tools))
	}
	tool := l.Tools[e.Tool]
	switch e.Kind {
	case Field:
		ops, err = fieldOps(tool, e.Tool, e.Name, e.Value)
	case Param:
		ops, err = paramOps(tool, e.Tool, e.Param, e.Name, e.Value)
	case ParamOp:
		ops, err = paramStructOps(tool, e.Tool, e.Verb, e.Param)
	default:
		err = fmt.Errorf("unknown kind of tool edit %d", e.Kind)
	}
	return ops, e.Tool, err
}

// ToolGone is the problem of a change to tool t (0-based) that a listing of n tools lacks.
func ToolGone(t, n int) *Problem {
	return &Problem{Msg: fmt.Sprintf("tool %d no longer exists; the listing has %d. Reload the page", t+1, n)}
}

func toolPtr(t int, rest ...string) string {
	return "/tools/" + strconv.Itoa(t) + listing.JoinPointer(rest...)
}

// set returns a copy of obj whose key (last occurrence) holds v, appended when absent. A nil v
// removes every occurrence.
func set(obj *listing.Value, key string, v *listing.Value) *listing.Value {
	var ms []listing.Member
	if obj != nil {
		ms = obj.Members
	}
	out := make([]listing.Member, 0, len(ms)+1)
	idx := -1
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].Key == key {
			idx = i
			break
		}
	}
	for i, m := range ms {
		if m.Key == key {
			if v != nil && i == idx {
				out = append(out, listing.Member{Key: key, Value: v, KeyPos: -1})
			}
			continue
		}
		out = append(out, m)
	}
	if v != nil && idx < 0 {
		out = append(out, listing.Member{Key: key, Value: v, KeyPos: -1})
	}
	return listing.NewObject(out...)
}

// isJSONNumber reports whether s is a number as JSON writes one (strconv also takes Inf, NaN
// and hexadecimal, and Python's JSON NaN and Infinity, none of which a listing can hold).
func isJSONNumber(s string) bool {
	return json.Valid([]byte(s)) && strings.IndexFunc(strings.TrimSpace(s), func(r rune) bool {
		return !strings.ContainsRune("0123456789-+.eE", r)
	}) < 0 && strings.TrimSpace(s) != ""
}

// fieldOps turns a new value for one field of tool t into listing operations.
func fieldOps(tool *listing.Value, t int, field, val string) ([]listing.Op, error) {
	switch field {
	case "name":
		return []listing.Op{{Kind: listing.OpSet, Path: toolPtr(t, "name"), Value: listing.NewString(val)}}, nil
	case "title", "description":
		// An emptied title goes; an emptied description stays, empty (the reference wants one).
		if val == "" && tool.Get(field) != nil && field == "title" {
			return []listing.Op{{Kind: listing.OpRemove, Path: toolPtr(t, field)}}, nil
		}
		if val == "" && tool.Get(field) == nil {
			return nil, nil
		}
		return []listing.Op{{Kind: listing.OpSet, Path: toolPtr(t, field), Value: listing.NewString(val)}}, nil
	case "inputSchema", "outputSchema":
		return schemaFieldOps(tool, t, field, val)
	}
	if key, ok := strings.CutPrefix(field, "ann-"); ok {
		return hintOps(tool, t, key, val)
	}
	return nil, fmt.Errorf("unknown field %q", field)
}

// schemaFieldOps sets a raw schema from its text; an error of its JSON is a *Problem with the
// line and column.
func schemaFieldOps(tool *listing.Value, t int, field, val string) ([]listing.Op, error) {
	if strings.TrimSpace(val) == "" {
		if field == "inputSchema" {
			return nil, &Problem{Msg: `inputSchema is required: a tool without parameters takes {"type": "object", "additionalProperties": false}`}
		}
		if tool.Get(field) == nil {
			return nil, nil
		}
		return []listing.Op{{Kind: listing.OpRemove, Path: toolPtr(t, field)}}, nil
	}
	v, err := listing.ParseJSON([]byte(val))
	if err != nil {
		var se *listing.SyntaxError
		if errors.As(err, &se) {
			return nil, &Problem{Msg: se.Msg, Line: se.Line, Column: se.Column}
		}
		return nil, &Problem{Msg: err.Error()}
	}
	if !v.IsObject() {
		return nil, &Problem{Msg: fmt.Sprintf("%s must be a JSON object (a JSON Schema), not a %s", field, v.Kind)}
	}
	return []listing.Op{{Kind: listing.OpSet, Path: toolPtr(t, field), Value: v}}, nil
}

// hintOps sets a behaviour hint to true or false, or unsets it ("": the host assumes the
// specification's default, listing.Hints).
func hintOps(tool *listing.Value, t int, key, val string) ([]listing.Op, error) {
	if _, ok := listing.HintDefault(key); !ok {
		return nil, fmt.Errorf("unknown annotation %q", key)
	}
	ann := tool.Get("annotations")
	switch val {
	case "":
		if ann.Get(key) == nil {
			return nil, nil
		}
		return []listing.Op{{Kind: listing.OpRemove, Path: toolPtr(t, "annotations", key)}}, nil
	case "true", "false":
		b := listing.NewBool(val == "true")
		if !ann.IsObject() {
			obj := listing.NewObject(listing.Member{Key: key, Value: b, KeyPos: -1})
			return []listing.Op{{Kind: listing.OpSet, Path: toolPtr(t, "annotations"), Value: obj}}, nil
		}
		return []listing.Op{{Kind: listing.OpSet, Path: toolPtr(t, "annotations", key), Value: b}}, nil
	}
	return nil, fmt.Errorf("annotation value %q: use true, false or empty", val)
}
