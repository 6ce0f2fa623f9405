package tooledit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tool-workbench/workbench/listing"
)

// Props returns the inputSchema object and its properties object of a tool, or a reason why the
// parameters cannot be edited as a table (the editor shows it instead of the table).
func Props(tool *listing.Value) (schema, properties *listing.Value, why string) {
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

// RequiredNames returns the strings of a schema's "required" array.
func RequiredNames(schema *listing.Value) []string {
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

// without returns names without name, never nil (an emptied "required" stays, as [ ]).
func without(names []string, name string) []string {
	out := []string{}
	for _, r := range names {
		if r != name {
			out = append(out, r)
		}
	}
	return out
}

func schemaOp(t int, schema *listing.Value) []listing.Op {
	return []listing.Op{{Kind: listing.OpSet, Path: toolPtr(t, "inputSchema"), Value: schema}}
}

// paramOps rewrites the inputSchema of tool t after one cell of the parameters table changed.
func paramOps(tool *listing.Value, t, p int, key, val string) ([]listing.Op, error) {
	schema, properties, why := Props(tool)
	if why != "" {
		return nil, &Problem{Msg: why}
	}
	fields := properties.Fields()
	if p < 0 || p >= len(fields) {
		return nil, &Problem{Msg: fmt.Sprintf("parameter %d no longer exists; the tool has %d", p+1, len(fields))}
	}
	name, spec := fields[p].Key, fields[p].Value
	if !spec.IsObject() {
		spec = listing.NewObject()
	}
	switch key {
	case "name":
		return renameParam(schema, fields, t, p, val)
	case "required":
		req := without(RequiredNames(schema), name)
		if val == "true" {
			req = append(req, name)
		}
		return schemaOp(t, withRequired(schema, req)), nil
	}
	v, err := memberValue(spec, name, key, val)
	if err != nil {
		return nil, err
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

// renameParam renames parameter p in place, and in "required".
func renameParam(schema *listing.Value, fields []listing.Member, t, p int, val string) ([]listing.Op, error) {
	if val == "" {
		return nil, &Problem{Msg: "a parameter needs a name"}
	}
	for i, f := range fields {
		if i != p && f.Key == val {
			return nil, &Problem{Msg: fmt.Sprintf("another parameter is already called %q", val)}
		}
	}
	ms := make([]listing.Member, len(fields))
	copy(ms, fields)
	ms[p] = listing.Member{Key: val, Value: fields[p].Value, KeyPos: -1}
	req := RequiredNames(schema)
	for i, r := range req {
		if r == fields[p].Key {
			req[i] = val
		}
	}
	if schema.Get("required") != nil {
		schema = withRequired(schema, req)
	}
	return schemaOp(t, set(schema, "properties", listing.NewObject(ms...))), nil
}

// memberValue is the JSON value a cell's text val gives member key of parameter name's schema
// spec; nil removes the member.
func memberValue(spec *listing.Value, name, key, val string) (*listing.Value, error) {
	switch key {
	case "type", "description", "format":
		if val != "" {
			return listing.NewString(val), nil
		}
	case "minimum", "maximum":
		if val != "" {
			if !isJSONNumber(val) {
				return nil, &Problem{Msg: fmt.Sprintf("%s of %s must be a JSON number, such as 0, 2.5 or 1e3; got %q", key, name, val)}
			}
			return listing.NewNumber(strings.TrimSpace(val)), nil
		}
	case "default":
		if strings.TrimSpace(val) != "" {
			pv, err := listing.ParseJSON([]byte(val))
			if err != nil {
				return nil, &Problem{Msg: fmt.Sprintf("default of %s must be JSON (a string needs quotes: \"text\"): %v", name, err)}
			}
			return pv, nil
		}
	case "enum":
		if strings.TrimSpace(val) != "" {
			return enumValue(spec, val), nil
		}
	default:
		return nil, fmt.Errorf("unknown parameter field %q", key)
	}
	return nil, nil
}

// enumValue reads a comma-separated list: numbers for a numeric parameter, strings otherwise.
func enumValue(spec *listing.Value, val string) *listing.Value {
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
	return listing.NewArray(items...)
}

// paramStructOps adds, removes or moves a parameter.
func paramStructOps(tool *listing.Value, t int, op string, p int) ([]listing.Op, error) {
	schema, properties, why := Props(tool)
	if why != "" {
		return nil, &Problem{Msg: why}
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
			return nil, &Problem{Msg: fmt.Sprintf("parameter %d no longer exists", p+1)}
		}
		switch {
		case op == "del":
			name := fields[p].Key
			fields = append(fields[:p], fields[p+1:]...)
			if schema.Get("required") != nil {
				schema = withRequired(schema, without(RequiredNames(schema), name))
			}
		case op == "up" && p == 0, op == "down" && p == len(fields)-1:
			return nil, nil // already first or last
		case op == "up":
			fields[p-1], fields[p] = fields[p], fields[p-1]
		default:
			fields[p+1], fields[p] = fields[p], fields[p+1]
		}
	default:
		return nil, fmt.Errorf("unknown parameter operation %q", op)
	}
	return schemaOp(t, set(schema, "properties", listing.NewObject(fields...))), nil
}
