package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tool-workbench/workbench/listing"
)

// problem is an edit the person has to correct; its text is shown next to the field.
type problem struct {
	Msg    string
	Line   int
	Column int
}

func (p *problem) Error() string { return p.Msg }

func toolPtr(t int, rest ...string) string {
	return "/tools/" + strconv.Itoa(t) + listing.JoinPointer(rest...)
}

// The annotation keys and what a host assumes when each is unset (the spec's schema defaults).
var annotationDefaults = []struct {
	Key, Label, Help string
	Default          bool
}{
	{"readOnlyHint", "readOnlyHint", "the tool does not change its environment", false},
	{"destructiveHint", "destructiveHint", "a change may destroy or overwrite data", true},
	{"idempotentHint", "idempotentHint", "calling twice with the same arguments does nothing more", false},
	{"openWorldHint", "openWorldHint", "the tool reaches beyond a closed set of data (the web, other systems)", true},
}

// fieldOps turns a new value for one field of tool t into listing operations.
func fieldOps(tool *listing.Value, t int, field, val string) ([]listing.Op, error) {
	switch field {
	case "name":
		return []listing.Op{{Kind: listing.OpSet, Path: toolPtr(t, "name"), Value: listing.NewString(val)}}, nil
	case "title", "description":
		if val == "" && tool.Get(field) != nil && field == "title" {
			return []listing.Op{{Kind: listing.OpRemove, Path: toolPtr(t, field)}}, nil
		}
		if val == "" && tool.Get(field) == nil {
			return nil, nil
		}
		return []listing.Op{{Kind: listing.OpSet, Path: toolPtr(t, field), Value: listing.NewString(val)}}, nil
	case "inputSchema", "outputSchema":
		if strings.TrimSpace(val) == "" {
			if field == "inputSchema" {
				return nil, &problem{Msg: `inputSchema is required: a tool without parameters takes {"type": "object", "additionalProperties": false}`}
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
				return nil, &problem{Msg: se.Msg, Line: se.Line, Column: se.Column}
			}
			return nil, &problem{Msg: err.Error()}
		}
		if !v.IsObject() {
			return nil, &problem{Msg: fmt.Sprintf("%s must be a JSON object (a JSON Schema), not a %s", field, v.Kind)}
		}
		return []listing.Op{{Kind: listing.OpSet, Path: toolPtr(t, field), Value: v}}, nil
	}
	if key, ok := strings.CutPrefix(field, "ann-"); ok {
		known := false
		for _, a := range annotationDefaults {
			known = known || a.Key == key
		}
		if !known {
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
	return nil, fmt.Errorf("unknown field %q", field)
}

// props returns the inputSchema object and its properties object of a tool, or a reason why the
// parameters cannot be edited as a table.
func props(tool *listing.Value) (schema, properties *listing.Value, why string) {
	schema = tool.Get("inputSchema")
	if schema == nil {
		return listing.NewObject(listing.Member{Key: "type", Value: listing.NewString("object"), KeyPos: -1}), nil, ""
	}
	if !schema.IsObject() {
		return nil, nil, fmt.Sprintf("inputSchema is a %s, not an object; fix it in the raw JSON below to edit parameters here.", schema.Kind)
	}
	p := schema.Get("properties")
	if p != nil && !p.IsObject() {
		return nil, nil, fmt.Sprintf("inputSchema.properties is a %s, not an object; fix it in the raw JSON below.", p.Kind)
	}
	return schema, p, ""
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

func requiredNames(schema *listing.Value) []string {
	var out []string
	if r := schema.Get("required"); r != nil && r.Kind == listing.Array {
		for _, it := range r.Items {
			if it.IsString() {
				out = append(out, it.Str)
			}
		}
	}
	return out
}

func withRequired(schema *listing.Value, names []string) *listing.Value {
	items := make([]*listing.Value, len(names))
	for i, n := range names {
		items[i] = listing.NewString(n)
	}
	return set(schema, "required", listing.NewArray(items...))
}

// paramOps rewrites the inputSchema of tool t after one cell of the parameters table changed.
func paramOps(tool *listing.Value, t, p int, key, val string) ([]listing.Op, error) {
	schema, properties, why := props(tool)
	if why != "" {
		return nil, &problem{Msg: why}
	}
	fields := properties.Fields()
	if p < 0 || p >= len(fields) {
		return nil, &problem{Msg: fmt.Sprintf("parameter %d no longer exists; the tool has %d", p+1, len(fields))}
	}
	name, spec := fields[p].Key, fields[p].Value
	if !spec.IsObject() {
		spec = listing.NewObject()
	}
	var newProps, v *listing.Value
	switch key {
	case "name":
		if val == "" {
			return nil, &problem{Msg: "a parameter needs a name"}
		}
		for i, f := range fields {
			if i != p && f.Key == val {
				return nil, &problem{Msg: fmt.Sprintf("another parameter is already called %q", val)}
			}
		}
		ms := make([]listing.Member, len(fields))
		copy(ms, fields)
		ms[p] = listing.Member{Key: val, Value: fields[p].Value, KeyPos: -1}
		newProps = listing.NewObject(ms...)
		req := requiredNames(schema)
		for i, r := range req {
			if r == name {
				req[i] = val
			}
		}
		if schema.Get("required") != nil {
			schema = withRequired(schema, req)
		}
		return schemaOp(t, set(schema, "properties", newProps)), nil
	case "required":
		req := requiredNames(schema)
		var out []string
		for _, r := range req {
			if r != name {
				out = append(out, r)
			}
		}
		if val == "true" {
			out = append(out, name)
		}
		if out == nil {
			out = []string{}
		}
		return schemaOp(t, withRequired(schema, out)), nil
	case "type", "description", "format":
		if val != "" {
			v = listing.NewString(val)
		}
	case "minimum", "maximum":
		if val != "" {
			if !isJSONNumber(val) {
				return nil, &problem{Msg: fmt.Sprintf("%s of %s must be a JSON number, such as 0, 2.5 or 1e3; got %q", key, name, val)}
			}
			v = listing.NewNumber(strings.TrimSpace(val))
		}
	case "default":
		if strings.TrimSpace(val) != "" {
			pv, err := listing.ParseJSON([]byte(val))
			if err != nil {
				return nil, &problem{Msg: fmt.Sprintf("default of %s must be JSON (a string needs quotes: \"text\"): %v", name, err)}
			}
			v = pv
		}
	case "enum":
		if strings.TrimSpace(val) != "" {
			numeric := spec.Get("type").String() == "integer" || spec.Get("type").String() == "number"
			var items []*listing.Value
			for _, part := range strings.Split(val, ",") {
				part = strings.TrimSpace(part)
				if part == "" {
					continue
				}
				if numeric && isJSONNumber(part) {
					items = append(items, listing.NewNumber(part))
				} else {
					items = append(items, listing.NewString(part))
				}
			}
			v = listing.NewArray(items...)
		}
	default:
		return nil, fmt.Errorf("unknown parameter field %q", key)
	}
	if fields[p].Value.IsObject() {
		// One member of one parameter: two people editing different parameters (or fields)
		// of a tool at once both keep their edit, and undo takes back this field only.
		path := toolPtr(t, "inputSchema", "properties", name, key)
		if v == nil {
			if spec.Get(key) == nil {
				return nil, nil
			}
			return []listing.Op{{Kind: listing.OpRemove, Path: path}}, nil
		}
		return []listing.Op{{Kind: listing.OpSet, Path: path, Value: v}}, nil
	}
	// The parameter's schema is not an object (true, say): it becomes one, in place.
	ms := make([]listing.Member, len(fields))
	copy(ms, fields)
	ms[p] = listing.Member{Key: name, Value: set(spec, key, v), KeyPos: -1}
	return schemaOp(t, set(schema, "properties", listing.NewObject(ms...))), nil
}

func schemaOp(t int, schema *listing.Value) []listing.Op {
	return []listing.Op{{Kind: listing.OpSet, Path: toolPtr(t, "inputSchema"), Value: schema}}
}

// paramStructOps adds, removes or moves a parameter.
func paramStructOps(tool *listing.Value, t int, op string, p int) ([]listing.Op, error) {
	schema, properties, why := props(tool)
	if why != "" {
		return nil, &problem{Msg: why}
	}
	fields := append([]listing.Member(nil), properties.Fields()...)
	switch op {
	case "add":
		n := len(fields) + 1
		name := "param_" + strconv.Itoa(n)
		for properties.Get(name) != nil {
			n++
			name = "param_" + strconv.Itoa(n)
		}
		spec := listing.NewObject(
			listing.Member{Key: "type", Value: listing.NewString("string"), KeyPos: -1},
			listing.Member{Key: "description", Value: listing.NewString(""), KeyPos: -1})
		fields = append(fields, listing.Member{Key: name, Value: spec, KeyPos: -1})
		if schema.Get("required") == nil {
			schema = withRequired(schema, []string{})
		}
	case "del", "up", "down":
		if p < 0 || p >= len(fields) {
			return nil, &problem{Msg: fmt.Sprintf("parameter %d no longer exists", p+1)}
		}
		switch op {
		case "del":
			name := fields[p].Key
			fields = append(fields[:p], fields[p+1:]...)
			if schema.Get("required") != nil {
				var req []string
				for _, r := range requiredNames(schema) {
					if r != name {
						req = append(req, r)
					}
				}
				if req == nil {
					req = []string{}
				}
				schema = withRequired(schema, req)
			}
		case "up":
			if p == 0 {
				return nil, nil
			}
			fields[p-1], fields[p] = fields[p], fields[p-1]
		case "down":
			if p == len(fields)-1 {
				return nil, nil
			}
			fields[p+1], fields[p] = fields[p], fields[p+1]
		}
	default:
		return nil, fmt.Errorf("unknown parameter operation %q", op)
	}
	return schemaOp(t, set(schema, "properties", listing.NewObject(fields...))), nil
}

// toolGone is the problem of a change to tool t (0-based) that a listing of n tools lacks.
func toolGone(t, n int) *problem {
	return &problem{Msg: fmt.Sprintf("tool %d no longer exists; the listing has %d. Reload the page", t+1, n)}
}

// toolStructOps adds, duplicates, removes or moves a tool.
func toolStructOps(l *listing.Listing, op string, i int) ([]listing.Op, int, error) {
	n := len(l.Tools)
	if op != "add" && (i < 0 || i >= n) {
		return nil, 0, toolGone(i, n)
	}
	names := map[string]bool{}
	for _, nm := range l.Names() {
		names[nm] = true
	}
	unique := func(base string) string {
		name := base
		for k := 2; names[name]; k++ {
			name = base + "_" + strconv.Itoa(k)
		}
		return name
	}
	switch op {
	case "add":
		tool := listing.NewObject(
			listing.Member{Key: "name", Value: listing.NewString(unique("new_tool")), KeyPos: -1},
			listing.Member{Key: "description", Value: listing.NewString(""), KeyPos: -1},
			listing.Member{Key: "inputSchema", Value: listing.NewObject(
				listing.Member{Key: "type", Value: listing.NewString("object"), KeyPos: -1},
				listing.Member{Key: "additionalProperties", Value: listing.NewBool(false), KeyPos: -1}), KeyPos: -1})
		return []listing.Op{{Kind: listing.OpInsert, Path: "/tools/-", Value: tool}}, n, nil
	case "dup":
		c := set(l.Tools[i], "name", listing.NewString(unique(l.Names()[i]+"_copy")))
		return []listing.Op{{Kind: listing.OpInsert, Path: toolPtr(i + 1), Value: c}}, i + 1, nil
	case "del":
		sel := i
		if sel >= n-1 {
			sel = n - 2
		}
		return []listing.Op{{Kind: listing.OpRemove, Path: toolPtr(i)}}, max(sel, 0), nil
	case "up", "down":
		to := i - 1
		if op == "down" {
			to = i + 1
		}
		if to < 0 || to >= n {
			return nil, i, nil
		}
		return []listing.Op{{Kind: listing.OpMove, Path: "/tools", From: i, To: to}}, to, nil
	}
	return nil, 0, fmt.Errorf("unknown tool operation %q", op)
}

// isJSONNumber reports whether s is a number as JSON writes one (strconv also takes Inf, NaN
// and hexadecimal, and Python's JSON NaN and Infinity, none of which a listing can hold).
func isJSONNumber(s string) bool {
	return json.Valid([]byte(s)) && strings.IndexFunc(strings.TrimSpace(s), func(r rune) bool {
		return !strings.ContainsRune("0123456789-+.eE", r)
	}) < 0 && strings.TrimSpace(s) != ""
}
