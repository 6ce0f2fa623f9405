package cost

import (
	"fmt"
	"strings"

	"github.com/tool-workbench/workbench/listing"
)

// rendered is one tool, or a listing's frame, as a rendering shows it: the texts that are
// tokenized one by one, the tokens the method adds on top of them (OpenAI's constants, special
// tokens, a system prompt), its bytes, and the parts of it that the breakdown reports.
type rendered struct {
	texts []string
	fixed int
	bytes int
	parts []partText
	// joint is set on the frame of a rendering that is one text (see separated).
	joint *joint
}

// joint is how a rendering that is one text joins its tools: the text a host tokenizes is
// pre + tool_0 + sep + tool_1 + ... + tool_n-1 + post. The counter's total is that text's count.
type joint struct{ pre, sep, post string }

type partText struct {
	name  string
	texts []string
	fixed int
	bytes int
}

// renderer is one way a host shows tools to a model.
type renderer struct {
	name     string
	summary  string
	source   string
	estimate bool
	tool     func(o *options, t *listing.Value) rendered
	frame    func(o *options, l *listing.Listing) rendered
}

// options are the settings a rendering may read, resolved once by NewCounter.
type options struct {
	openai    openaiConstants
	anthropic AnthropicOverhead
	choice    string
}

// Rendering describes a rendering for help texts and reports.
type Rendering struct {
	Name     string `json:"name"`
	Summary  string `json:"summary"`
	Source   string `json:"source"`
	Estimate bool   `json:"estimate"`
}

var renderers = []*renderer{
	{
		name:    "wire",
		summary: "the tools/list result as the server sends it, compact, members as written",
		source:  "MCP specification, tools/list result; encoded with listing.Marshal of (*Listing).Result()",
		tool:    wireTool,
		frame:   wireFrame,
	},
	{
		name:    "compact",
		summary: `the tools array as compact JSON (json.dumps with separators (",", ":"), ensure_ascii=False)`,
		source:  "the reference checker's INFO line (../shared/reference/tool_design_check.py)",
		tool:    compactTool,
		frame:   arrayFrame,
	},
	{
		name:    "seed-host",
		summary: `one JSON line per tool, {"type": "function", "function": {name, description, parameters}}, json.dumps(spec, ensure_ascii=False)`,
		source:  `seed 000 "Keep the tool list small" (its host's tool_specs lines) and Qwen3's chat template, which writes each tool as "tool | tojson" on its own line`,
		tool:    seedHostTool,
		frame:   func(*options, *listing.Listing) rendered { return rendered{} },
	},
	{
		name:     "openai",
		summary:  "OpenAI function tools, estimated with the cookbook's constants per function, property and enum value",
		source:   `OpenAI cookbook "How to count tokens with tiktoken", num_tokens_for_tools (gpt-4o family and gpt-3.5-turbo/gpt-4)`,
		estimate: true,
		tool:     openaiTool,
		frame:    openaiFrame,
	},
	{
		name:    "harmony",
		summary: "the harmony developer message's TypeScript-like namespace functions { ... } block (gpt-oss)",
		source:  "openai/harmony src/encoding.rs, json_schema_to_typescript and template_tools_section; the harmony response format guide",
		tool:    harmonyTool,
		frame:   harmonyFrame,
	},
	{
		name:     "anthropic",
		summary:  "Anthropic tools (name, description, input_schema) as compact JSON, plus the tool-use system prompt of the model",
		source:   "Anthropic docs, tool use: pricing (tool use system prompt token count per model), kept in anthropic.json",
		estimate: true,
		tool:     anthropicTool,
		frame:    anthropicFrame,
	},
	qwen3Renderer,
	llama31Renderer,
	mistralRenderer,
}

// Renderings lists the renderings in a stable order.
func Renderings() []Rendering {
	out := make([]Rendering, len(renderers))
	for i, r := range renderers {
		out[i] = Rendering{Name: r.name, Summary: r.summary, Source: r.source, Estimate: r.estimate}
	}
	return out
}

// RenderingNames lists the renderings' names.
func RenderingNames() []string {
	out := make([]string, len(renderers))
	for i, r := range renderers {
		out[i] = r.name
	}
	return out
}

func findRenderer(name string) (*renderer, error) {
	for _, r := range renderers {
		if r.name == name {
			return r, nil
		}
	}
	return nil, fmt.Errorf("unknown rendering %q: use one of %s", name, strings.Join(RenderingNames(), ", "))
}

// Part names of the breakdown, in the order reports list them.
const (
	PartName         = "name"
	PartDescription  = "description"
	PartSchema       = "schema"
	PartAnnotations  = "annotations"
	PartOutputSchema = "output schema"
	PartOther        = "other fields"
	PartSyntax       = "syntax"
)

var partOrder = []string{PartName, PartDescription, PartSchema, PartAnnotations, PartOutputSchema, PartOther, PartSyntax}

// PartNames lists the parts of the breakdown in the order reports list them (syntax last).
func PartNames() []string { return append([]string(nil), partOrder...) }

func partOf(key string) string {
	switch key {
	case "name":
		return PartName
	case "description":
		return PartDescription
	case "inputSchema", "parameters", "input_schema":
		return PartSchema
	case "annotations":
		return PartAnnotations
	case "outputSchema":
		return PartOutputSchema
	}
	return PartOther
}

// jsonParts groups the encoded members of a tool object by part; enc encodes one member.
func jsonParts(members []listing.Member, enc func(m listing.Member) string) []partText {
	byName := map[string]*partText{}
	for _, m := range members {
		p := partOf(m.Key)
		pt := byName[p]
		if pt == nil {
			pt = &partText{name: p}
			byName[p] = pt
		}
		s := enc(m)
		pt.texts = append(pt.texts, s)
		pt.bytes += len(s)
	}
	var out []partText
	for _, n := range partOrder {
		if pt := byName[n]; pt != nil {
			out = append(out, *pt)
		}
	}
	return out
}

func whole(s string, parts []partText) rendered {
	return rendered{texts: []string{s}, bytes: len(s), parts: parts}
}

func toolStr(t *listing.Value, key string) string {
	if v := t.Get(key); v != nil && v.Kind == listing.String {
		return v.Str
	}
	return ""
}

// --- wire -------------------------------------------------------------------------------------

func wireTool(_ *options, t *listing.Value) rendered {
	s := string(listing.Marshal(t, ""))
	var members []listing.Member
	if t.Kind == listing.Object {
		members = t.Members
	}
	return whole(s, jsonParts(members, func(m listing.Member) string {
		return string(listing.Marshal(listing.NewString(m.Key), "")) + ":" + string(listing.Marshal(m.Value, ""))
	}))
}

// wireFrame is the result object around the tools: its other members, the tools member's key
// and brackets, and the commas between tools. Together with the tools it is exactly
// listing.Marshal(l.Result(), "").
func wireFrame(_ *options, l *listing.Listing) rendered {
	res := l.Result()
	last := -1
	for i, m := range res.Members {
		if m.Key == "tools" {
			last = i
		}
	}
	member := func(b *strings.Builder, m listing.Member) {
		b.Write(listing.Marshal(listing.NewString(m.Key), ""))
		b.WriteByte(':')
		b.Write(listing.Marshal(m.Value, ""))
	}
	var pre, post strings.Builder
	pre.WriteByte('{')
	for _, m := range res.Members[:last] {
		member(&pre, m)
		pre.WriteByte(',')
	}
	pre.Write(listing.Marshal(listing.NewString("tools"), ""))
	pre.WriteString(":[")
	post.WriteByte(']')
	for _, m := range res.Members[last+1:] {
		post.WriteByte(',')
		member(&post, m)
	}
	post.WriteByte('}')
	return separated(pre.String(), post.String(), ",", len(l.Tools))
}

// separated is a frame of a prefix, a suffix and n-1 separators between n tools: the frame of a
// rendering that is one text, pre + tool_0 + sep + ... + tool_n-1 + post, which the counter
// counts as that one text. Frame tokens outside that text go in the frame's fixed tokens or
// its other texts.
func separated(pre, post, sep string, n int) rendered {
	r := rendered{texts: []string{pre}, joint: &joint{pre: pre, sep: sep, post: post}}
	for i := 1; i < n; i++ {
		r.texts = append(r.texts, sep)
	}
	if post != "" {
		r.texts = append(r.texts, post)
	}
	for _, s := range r.texts {
		r.bytes += len(s)
	}
	return r
}

// --- compact ----------------------------------------------------------------------------------

func pyCompact(v *listing.Value) string { return string(listing.PythonJSON(v, true)) }

func compactTool(_ *options, t *listing.Value) rendered {
	var members []listing.Member
	if t.Kind == listing.Object {
		members = t.Fields()
	}
	return whole(pyCompact(t), jsonParts(members, func(m listing.Member) string {
		return pyCompact(listing.NewString(m.Key)) + ":" + pyCompact(m.Value)
	}))
}

func arrayFrame(_ *options, l *listing.Listing) rendered {
	if len(l.Tools) == 0 {
		return separated("[]", "", ",", 0)
	}
	return separated("[", "]", ",", len(l.Tools))
}

// --- seed-host --------------------------------------------------------------------------------

// pyDefault encodes v as Python's json.dumps(v, ensure_ascii=False) does: separators ", " and
// ": ", non-ASCII text kept, numbers and repeated keys as json.loads left them.
func pyDefault(b *strings.Builder, v *listing.Value) {
	switch v.Kind {
	case listing.Array:
		b.WriteByte('[')
		for i, it := range v.Items {
			if i > 0 {
				b.WriteString(", ")
			}
			pyDefault(b, it)
		}
		b.WriteByte(']')
	case listing.Object:
		b.WriteByte('{')
		for i, m := range v.Fields() {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(pyCompact(listing.NewString(m.Key)))
			b.WriteString(": ")
			pyDefault(b, m.Value)
		}
		b.WriteByte('}')
	default:
		b.WriteString(pyCompact(v))
	}
}

func pyDefaultString(v *listing.Value) string {
	var b strings.Builder
	pyDefault(&b, v)
	return b.String()
}

// functionSpec is the OpenAI-style function tool that chat templates and the OpenAI API take:
// {"type": "function", "function": {"name", "description", "parameters"}}, with members the MCP
// tool lacks left out.
func functionSpec(t *listing.Value) *listing.Value {
	var fn []listing.Member
	for _, k := range [][2]string{{"name", "name"}, {"description", "description"}, {"inputSchema", "parameters"}} {
		if v := t.Get(k[0]); v != nil {
			fn = append(fn, listing.Member{Key: k[1], Value: v, KeyPos: -1})
		}
	}
	return listing.NewObject(
		listing.Member{Key: "type", Value: listing.NewString("function"), KeyPos: -1},
		listing.Member{Key: "function", Value: listing.NewObject(fn...), KeyPos: -1},
	)
}

func seedHostTool(_ *options, t *listing.Value) rendered {
	spec := functionSpec(t)
	fn := spec.Get("function")
	return whole(pyDefaultString(spec), jsonParts(fn.Members, func(m listing.Member) string {
		return pyCompact(listing.NewString(m.Key)) + ": " + pyDefaultString(m.Value)
	}))
}

// --- anthropic --------------------------------------------------------------------------------

func anthropicSpec(t *listing.Value) *listing.Value {
	var ms []listing.Member
	for _, k := range [][2]string{{"name", "name"}, {"description", "description"}, {"inputSchema", "input_schema"}} {
		if v := t.Get(k[0]); v != nil {
			ms = append(ms, listing.Member{Key: k[1], Value: v, KeyPos: -1})
		}
	}
	return listing.NewObject(ms...)
}

func anthropicTool(_ *options, t *listing.Value) rendered {
	spec := anthropicSpec(t)
	return whole(pyCompact(spec), jsonParts(spec.Members, func(m listing.Member) string {
		return pyCompact(listing.NewString(m.Key)) + ":" + pyCompact(m.Value)
	}))
}

func anthropicFrame(o *options, l *listing.Listing) rendered {
	r := arrayFrame(o, l)
	if len(l.Tools) > 0 {
		r.fixed = o.anthropic.tokens(o.choice)
	}
	return r
}

// --- openai -----------------------------------------------------------------------------------

// openaiConstants are the cookbook's per-model token constants for function tools.
type openaiConstants struct {
	Family                                                   string
	FuncInit, PropInit, PropKey, EnumInit, EnumItem, FuncEnd int
}

// The cookbook's constants: gpt-4o and gpt-4o-mini; gpt-3.5-turbo and gpt-4.
var (
	openaiGPT4o = openaiConstants{Family: "gpt-4o", FuncInit: 7, PropInit: 3, PropKey: 3, EnumInit: -3, EnumItem: 3, FuncEnd: 12}
	openaiGPT4  = openaiConstants{Family: "gpt-4", FuncInit: 10, PropInit: 3, PropKey: 3, EnumInit: -3, EnumItem: 3, FuncEnd: 12}
)

// Models lists the models whose constants a rendering can use (Options.Model): the openai
// estimate's and the anthropic table's; none for the renderings that take no model.
func Models(render string) []string {
	switch render {
	case "openai":
		return []string{"gpt-4o", "gpt-4o-mini", "gpt-4", "gpt-3.5-turbo"}
	case "anthropic":
		var out []string
		for _, m := range Anthropic().Models {
			out = append(out, m.Model)
		}
		return out
	}
	return nil
}

// ToolChoices are Anthropic's tool_choice values (Options.ToolChoice), which the anthropic
// rendering's system prompt depends on.
var ToolChoices = []string{"auto", "none", "any", "tool"}

func openaiFor(model, encoding string) (openaiConstants, error) {
	switch model {
	case "":
		if encoding == "cl100k_base" {
			return openaiGPT4, nil
		}
		return openaiGPT4o, nil
	case "gpt-4o", "gpt-4o-mini":
		return openaiGPT4o, nil
	case "gpt-4", "gpt-3.5-turbo":
		return openaiGPT4, nil
	}
	return openaiConstants{}, fmt.Errorf("the openai estimate has constants for gpt-4o, gpt-4o-mini, gpt-4 and gpt-3.5-turbo, not %q", model)
}

// scalarText is how the cookbook's f-strings show a value: a string as it is, anything else
// as compact JSON (the cookbook assumes strings).
func scalarText(v *listing.Value) string {
	if v == nil {
		return ""
	}
	if v.Kind == listing.String {
		return v.Str
	}
	return pyCompact(v)
}

func openaiTool(o *options, t *listing.Value) rendered {
	c := o.openai
	name, desc := toolStr(t, "name"), toolStr(t, "description")
	desc = strings.TrimSuffix(desc, ".")
	head := name + ":" + desc
	r := rendered{texts: []string{head}, fixed: c.FuncInit}
	descPart := partText{name: PartDescription, texts: []string{head}}
	schemaPart := partText{name: PartSchema}
	if props := t.Get("inputSchema").Get("properties"); props != nil && props.Kind == listing.Object && len(props.Members) > 0 {
		schemaPart.fixed += c.PropInit
		for _, m := range props.Fields() {
			schemaPart.fixed += c.PropKey
			if e := m.Value.Get("enum"); e != nil && e.Kind == listing.Array {
				schemaPart.fixed += c.EnumInit
				for _, it := range e.Items {
					schemaPart.fixed += c.EnumItem
					schemaPart.texts = append(schemaPart.texts, scalarText(it))
				}
			}
			line := m.Key + ":" + scalarText(m.Value.Get("type")) + ":" + strings.TrimSuffix(scalarText(m.Value.Get("description")), ".")
			schemaPart.texts = append(schemaPart.texts, line)
		}
	}
	r.texts = append(r.texts, schemaPart.texts...)
	r.fixed += schemaPart.fixed
	// Bytes are those of the function tool as a request carries it, in compact JSON.
	spec := functionSpec(t)
	r.bytes = len(pyCompact(spec))
	fn := spec.Get("function")
	for _, m := range fn.Members {
		s := pyCompact(listing.NewString(m.Key)) + ":" + pyCompact(m.Value)
		switch partOf(m.Key) {
		case PartName, PartDescription:
			descPart.bytes += len(s)
		case PartSchema:
			schemaPart.bytes += len(s)
		}
	}
	descPart.name = "name and description"
	r.parts = []partText{descPart, schemaPart}
	return r
}

func openaiFrame(o *options, l *listing.Listing) rendered {
	r := arrayFrame(o, l)
	// The cookbook adds func_end once for the whole list of functions, and the brackets and
	// commas of the request's JSON are not tokens of the prompt.
	r.texts, r.joint = nil, nil
	if len(l.Tools) > 0 {
		r.fixed = o.openai.FuncEnd
	}
	return r
}

// --- harmony ----------------------------------------------------------------------------------

// rustLines splits s as Rust's str::lines does: on "\n", dropping a "\r" before it, with no
// empty line after a final newline.
func rustLines(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

const (
	harmonyPrefix = "# Tools\n\n## functions\n\nnamespace functions {\n\n"
	harmonySuffix = "} // namespace functions"
)

func harmonyTool(_ *options, t *listing.Value) rendered {
	var desc strings.Builder
	for _, line := range rustLines(toolStr(t, "description")) {
		desc.WriteString("// ")
		desc.WriteString(line)
		desc.WriteByte('\n')
	}
	name := toolStr(t, "name")
	typ := "type " + name + " = () => any;\n\n"
	if params := t.Get("inputSchema"); params != nil && params.Kind != listing.Null {
		typ = "type " + name + " = (_: " + tsType(params, "") + ") => any;\n\n"
	}
	d := desc.String()
	parts := []partText{{name: PartSchema, texts: []string{typ}, bytes: len(typ)}}
	if d != "" {
		parts = append([]partText{{name: PartDescription, texts: []string{d}, bytes: len(d)}}, parts...)
	}
	s := d + typ
	return rendered{texts: []string{s}, bytes: len(s), parts: parts}
}

// harmonyFrame is the developer message around the tools: <|start|>developer<|message|>, the
// headings and namespace lines, and <|end|>; the three special tokens are counted as one each.
func harmonyFrame(_ *options, l *listing.Listing) rendered {
	if len(l.Tools) == 0 {
		// No tools, no developer message: one text, empty.
		return rendered{joint: &joint{}}
	}
	// The tools follow one another with nothing between them; the role name is text outside
	// the block, between <|start|> and <|message|>.
	r := separated(harmonyPrefix, harmonySuffix, "", len(l.Tools))
	r.texts = append(r.texts, "developer")
	r.fixed = 3
	r.bytes += len("developer") + len("<|start|><|message|><|end|>")
	return r
}

// tsType converts a JSON Schema to harmony's TypeScript-like type, following
// json_schema_to_typescript in openai/harmony's src/encoding.rs line for line (serde_json with
// preserve_order, so properties keep their order). Defaults that are not strings are shown as
// compact JSON; numbers keep Python's spelling where serde_json's would differ (1e+20, not 1e20).
func tsType(schema *listing.Value, indent string) string {
	get := func(v *listing.Value, key string) *listing.Value {
		if v == nil || v.Kind != listing.Object {
			return nil
		}
		return v.Get(key)
	}
	str := func(v *listing.Value) (string, bool) {
		if v != nil && v.Kind == listing.String {
			return v.Str, true
		}
		return "", false
	}
	isEnum := func(v *listing.Value) bool {
		e := get(v, "enum")
		return e != nil && e.Kind == listing.Array && len(e.Items) > 0
	}
	nullable := func(v *listing.Value) bool {
		n := get(v, "nullable")
		return n != nil && n.Kind == listing.Bool && n.Bool
	}
	withNull := func(variant *listing.Value, s string) string {
		if nullable(variant) && !strings.Contains(s, "null") {
			return s + " | null"
		}
		return s
	}
	// defaultComment is "default: ..." as the three branches of encoding.rs spell it.
	defaultComment := func(v, def *listing.Value, quoteEnumStrings bool) string {
		if s, ok := str(def); ok {
			if !isEnum(v) {
				return `default: "` + s + `"`
			}
			if !quoteEnumStrings {
				return "default: " + s
			}
		}
		return "default: " + pyCompact(def)
	}

	if oneOf := get(schema, "oneOf"); oneOf != nil && oneOf.Kind == listing.Array {
		var out strings.Builder
		for _, variant := range oneOf.Items {
			out.WriteString("\n" + indent + " | ")
			out.WriteString(withNull(variant, tsType(variant, indent+"   ")))
			var trailing []string
			if d, ok := str(get(variant, "description")); ok {
				trailing = append(trailing, d)
			}
			if def := get(variant, "default"); def != nil {
				trailing = append(trailing, defaultComment(variant, def, true))
			}
			if len(trailing) > 0 {
				out.WriteString(" // " + strings.Join(trailing, " "))
			}
		}
		return out.String()
	}
	typ := get(schema, "type")
	if typ != nil && typ.Kind == listing.Array {
		var ts []string
		for _, it := range typ.Items {
			if s, ok := str(it); ok {
				if s == "integer" {
					s = "number"
				}
				ts = append(ts, s)
			}
		}
		if len(ts) > 0 {
			return strings.Join(ts, " | ")
		}
	}
	ty, ok := str(typ)
	if !ok {
		return "any"
	}
	switch ty {
	case "object":
		var out strings.Builder
		if d, ok := str(get(schema, "description")); ok {
			out.WriteString(indent + "// " + d + "\n")
		}
		out.WriteString("{\n")
		if props := get(schema, "properties"); props != nil && props.Kind == listing.Object {
			required := map[string]bool{}
			if req := get(schema, "required"); req != nil && req.Kind == listing.Array {
				for _, r := range req.Items {
					if s, ok := str(r); ok {
						required[s] = true
					}
				}
			}
			for _, m := range props.Fields() {
				key, val := m.Key, m.Value
				opt := "?"
				if required[key] {
					opt = ""
				}
				if t, ok := str(get(val, "title")); ok {
					out.WriteString(indent + "// " + t + "\n" + indent + "//\n")
				}
				oneOf := get(val, "oneOf")
				if oneOf == nil {
					if d, ok := str(get(val, "description")); ok {
						out.WriteString(indent + "// " + d + "\n")
					}
				}
				if ex := get(val, "examples"); ex != nil && ex.Kind == listing.Array && len(ex.Items) > 0 {
					out.WriteString(indent + "// Examples:\n")
					for _, e := range ex.Items {
						if s, ok := str(e); ok {
							out.WriteString(indent + `// - "` + s + `"` + "\n")
						}
					}
				}
				if oneOf != nil && oneOf.Kind == listing.Array {
					propDesc, hasPropDesc := str(get(val, "description"))
					skip := false
					if hasPropDesc && len(oneOf.Items) > 0 {
						if vd, ok := str(get(oneOf.Items[0], "description")); ok && vd == propDesc {
							skip = true
						}
					}
					above := false
					if !skip && hasPropDesc {
						out.WriteString(indent + "// " + propDesc + "\n")
						above = true
					}
					if def := get(val, "default"); def != nil {
						out.WriteString(indent + "// " + defaultComment(val, def, false) + "\n")
					}
					out.WriteString(indent + key + opt + ":\n")
					for i, variant := range oneOf.Items {
						out.WriteString(indent + " | ")
						out.WriteString(withNull(variant, tsType(variant, indent+"   ")))
						var trailing []string
						if !(i == 0 && above) {
							if vd, ok := str(get(variant, "description")); ok && (!hasPropDesc || vd != propDesc) {
								trailing = append(trailing, vd)
							}
						}
						if def := get(variant, "default"); def != nil {
							trailing = append(trailing, defaultComment(variant, def, false))
						}
						if len(trailing) > 0 {
							out.WriteString(" // " + strings.Join(trailing, " "))
						}
						out.WriteByte('\n')
					}
					out.WriteString(indent + ",\n")
					continue
				}
				out.WriteString(indent + key + opt + ": ")
				out.WriteString(withNull(val, tsType(val, indent+"    ")))
				out.WriteByte(',')
				if oneOf == nil {
					if def := get(val, "default"); def != nil {
						out.WriteString(" // " + defaultComment(val, def, false))
					}
				}
				out.WriteByte('\n')
			}
		}
		out.WriteString(indent + "}")
		return out.String()
	case "string":
		if e := get(schema, "enum"); e != nil && e.Kind == listing.Array {
			var vals []string
			for _, it := range e.Items {
				if s, ok := str(it); ok {
					vals = append(vals, `"`+s+`"`)
				}
			}
			if len(vals) > 0 {
				return strings.Join(vals, " | ")
			}
		}
		return "string"
	case "number", "integer":
		return "number"
	case "boolean":
		return "boolean"
	case "array":
		if items := get(schema, "items"); items != nil {
			return tsType(items, indent) + "[]"
		}
		return "Array<any>"
	}
	return "any"
}
