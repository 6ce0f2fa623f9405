package lint

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/words"
)

// The rules a profile turns on (Profile.Rules). Each cites the source it follows; they are off
// without a profile that names them.
func init() {
	rs := []*Rule{
		{ID: "profile-name-openai", Category: CatNaming, Severity: Error, Scope: PerTool,
			Seed:    "openai-functions: " + srcOpenAIRef,
			Summary: "a name OpenAI's function calling refuses: not 1 to 64 characters of a-z A-Z 0-9 _ -",
			What:    "The tool's name does not match ^[a-zA-Z0-9_-]{1,64}$: it holds a dot, a space or another character, or is longer than 64 characters. MCP allows dots and 128 characters; OpenAI does not.",
			Why:     "A host that hands MCP tools to OpenAI's API sends each name as a function name, and the API answers the whole request with 400 (\"does not match ^[a-zA-Z0-9_-]{1,64}$\") when one name breaks the pattern: one tool called admin.users.list takes every tool of the server off the request. Hosts that rewrite names make the model see a name the descriptions never mention.",
			Bad:     `"name": "admin.users.list"`,
			Good:    `"name": "admin_users_list"`},
		{ID: "profile-name-length", Category: CatNaming, Severity: Error, Scope: PerTool,
			Seed:    "claude-connectors: " + srcClaudeReview,
			Summary: "a name longer than the profile allows (64 characters for the Connectors Directory)",
			What:    "The tool's name has more characters than the profile's limit (claude-connectors: 64).",
			Why:     "The Connectors Directory's review criteria say \"Tool names must be 64 characters or fewer\"; hosts prefix a server's name to each tool, and the model's API bounds the result.",
			Bad:     `"name": "workspace_administration_bulk_export_of_every_member_and_their_role_assignments"`,
			Good:    `"name": "members_export"`},
		{ID: "profile-schema-openai", Category: CatSchema, Severity: Error, Scope: PerTool,
			Seed:    "openai-functions: " + srcOpenAIFunc,
			Summary: "a parameter schema OpenAI's function calling refuses even without strict mode",
			What:    "inputSchema's root is not \"type\": \"object\", or has oneOf, anyOf, allOf, enum, not or const at the top level; or an array schema has no items (nor prefixItems).",
			Why:     "OpenAI answers the whole request with 400 for these shapes whether or not strict is set: \"schema must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level\" (langchain-ai/langchainjs#9804) and \"In context=('properties', 'paths'), array schema missing items\" (mark3labs/mcp-filesystem-server#23). One such tool keeps every tool of the server from the model.",
			Bad:     `"inputSchema": {"type": "object", "properties": {"paths": {"type": "array"}}}`,
			Good:    `"inputSchema": {"type": "object", "properties": {"paths": {"type": "array", "items": {"type": "string"}}}}`},
		{ID: "profile-schema-openai-strict", Category: CatSchema, Severity: Warning, Scope: PerTool,
			Seed:    "openai-functions: " + srcOpenAIStrict,
			Summary: "a parameter schema OpenAI's strict mode (structured outputs) refuses",
			What:    "What strict: true refuses: an object schema without \"additionalProperties\": false, or whose properties are not all in required; allOf, not, if, then, else, dependentRequired or dependentSchemas; a root anyOf; more than 5000 properties, 10 levels of nesting (properties, items and additionalProperties steps) or 1000 enum values in one schema.",
			Why:     "Strict mode makes the model's arguments follow the schema, and it is opt-in on Chat Completions: without strict the schema is a hint and these keywords are accepted. A warning, not an error: a host that sends strict: true with such a schema gets 400, one that does not gets arguments the schema may refuse. Optional fields in strict mode are required with a null type.",
			Bad:     `"inputSchema": {"type": "object", "properties": {"q": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["q"]}`,
			Good:    `"inputSchema": {"type": "object", "properties": {"q": {"type": "string"}, "limit": {"type": ["integer", "null"]}}, "required": ["q", "limit"], "additionalProperties": false}`},
		{ID: "profile-tools-limit", Category: CatListing, Severity: Error, Scope: ListingWide,
			Seed:    "openai-functions: " + srcOpenAIRef,
			Summary: "more tools than the platform accepts in one request (128 for OpenAI)",
			What:    "The listing holds more tools than the profile's limit (openai-functions: 128).",
			Why:     "OpenAI's API reference: \"A max of 128 functions are supported\". A host that sends every tool gets 400; one that cuts the list drops tools the user expects.",
			Bad:     `a server exposing 150 tools`,
			Good:    `servers of at most 128 tools each (far fewer: see listing-too-many-tools)`},
		{ID: "profile-title-missing", Category: CatAnnotations, Severity: Error, Scope: PerTool,
			Seed:    "claude-connectors: " + srcClaudeReview,
			Summary: "a tool without a title",
			What:    "The tool has neither a title nor annotations.title (a non-empty string).",
			Why:     "The Connectors Directory's review criteria: \"Every tool must include a title and the applicable hint\"; the title is what Claude shows a person who approves the call, and missing annotations are the most common rejection.",
			Bad:     `{"name": "tickets_search", "description": "…", "inputSchema": {…}}`,
			Good:    `{"name": "tickets_search", "title": "Search tickets", …}`},
		{ID: "profile-hint-readwrite", Category: CatAnnotations, Severity: Error, Scope: PerTool,
			Seed:    "claude-connectors: " + srcClaudeReview,
			Summary: "a tool that sets neither readOnlyHint nor destructiveHint",
			What:    "Neither annotations.readOnlyHint nor annotations.destructiveHint is a boolean.",
			Why:     "The review criteria ask for \"readOnlyHint: true for read-only tools, destructiveHint: true for tools that modify or delete data\": they decide Claude's permissions, read-only tools run without a prompt for each call and destructive ones always prompt.",
			Bad:     `"annotations": {"title": "Search tickets"}`,
			Good:    `"annotations": {"title": "Search tickets", "readOnlyHint": true}`},
		{ID: "profile-read-write-mixed", Category: CatAnnotations, Severity: Warning, Scope: PerTool,
			Seed:    "claude-connectors: " + srcClaudeReview + "; chatgpt-apps: " + srcAppsTools,
			Summary: "one tool that both reads and writes",
			What:    "A method parameter (method, http_method, httpMethod, verb) that takes both safe (GET, HEAD, OPTIONS) and unsafe methods, or has no enum at all; an action parameter (action, operation, op, mode, command) whose enum holds both a read verb and a write verb; or a name with both (get_or_create).",
			Why:     "The Connectors Directory rejects \"a single tool that accepts both safe HTTP methods and unsafe methods\" (a catch-all api_request with a method parameter), even when the description documents which is which; the Apps SDK asks for separate tools \"so ChatGPT can respect confirmation flows for write actions\". A host cannot ask before the write without asking before every read.",
			Bad:     `"name": "api_request", "inputSchema": {"properties": {"method": {"enum": ["GET", "POST", "DELETE"]}, "path": {…}}}`,
			Good:    `"name": "api_get" (readOnlyHint: true) and "api_post", "api_delete" (destructiveHint set)`},
		{ID: "profile-hints-explicit", Category: CatAnnotations, Severity: Error, Scope: PerTool,
			Seed:    "chatgpt-apps: " + srcAppsSubmission,
			Summary: "readOnlyHint, openWorldHint or destructiveHint not set explicitly",
			What:    "Each of annotations.readOnlyHint, annotations.openWorldHint and annotations.destructiveHint that is absent or not a boolean is one finding, on a read-only tool too.",
			Why:     "ChatGPT app submissions require all three hints on every tool, each with a justification; reviewers reject a tool whose hint is null even where the specification's default would apply (Teamwork/mcp#420: 190 tools without openWorldHint or destructiveHint).",
			Bad:     `"annotations": {"readOnlyHint": true}`,
			Good:    `"annotations": {"readOnlyHint": true, "openWorldHint": false, "destructiveHint": false}`},
		{ID: "profile-schema-dialect", Category: CatSchema, Severity: Warning, Scope: PerTool,
			Seed:    "mcp-2025-11-25, mcp-2026-07-28: " + srcSpec20251125,
			Summary: "a schema in another JSON Schema dialect than 2020-12, the protocol's default",
			What:    "inputSchema or outputSchema names a $schema other than https://json-schema.org/draft/2020-12/schema, or has no $schema and uses keywords 2020-12 reads differently or ignores (items as an array, additionalItems, dependencies, $recursiveRef).",
			Why:     "From 2025-11-25 a schema without $schema is JSON Schema 2020-12, and 2020-12 is the one dialect every client must support. A draft-07 tuple (items: [...]) then fails to compile or is read as something else, and a client need not support the dialect a $schema names.",
			Bad:     `"inputSchema": {"type": "object", "properties": {"point": {"type": "array", "items": [{"type": "number"}, {"type": "number"}]}}}`,
			Good:    `"inputSchema": {"type": "object", "properties": {"point": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}], "items": false}}}`},
		{ID: "profile-list-result-fields", Category: CatListing, Severity: Error, Scope: ListingWide,
			Seed:    "mcp-2026-07-28: " + srcChange20260728,
			Summary: "a tools/list result without resultType, ttlMs or cacheScope",
			What:    "The tools/list result (when the listing is one: a bare array of tools has no result to check) lacks resultType (\"complete\"), ttlMs (a non-negative integer) or cacheScope (\"public\" or \"private\"), or has one of another type.",
			Why:     "Revision 2026-07-28 requires ttlMs and cacheScope on tools/list results (CacheableResult, SEP-2549): they tell a client how long it may reuse the list instead of asking on every turn, and whether shared caches may keep it. Every result carries resultType. The revision also asks servers to return tools in a deterministic order so that the list and the model's prompt cache stay stable; one listing cannot show that, so compare two fetches.",
			Bad:     `{"tools": [...], "nextCursor": null}`,
			Good:    `{"resultType": "complete", "tools": [...], "ttlMs": 300000, "cacheScope": "public"}`},
	}
	for _, r := range rs {
		profileRules[r.ID] = true
		r.Fix, r.FixNote = profileFixes[r.ID].kind, profileFixes[r.ID].note
	}
	register(rs...)
	toolChecks = append(toolChecks, checkProfile)
	listingChecks = append(listingChecks, checkProfileListing)
}

var openAIName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// checkProfile runs the per-tool rules the configured profile turns on.
func checkProfile(c *toolCtx) {
	p := c.cfg.prof
	if p == nil {
		return
	}
	if p.on("profile-name-openai") && !openAIName.MatchString(c.name) {
		c.report("profile-name-openai", "/name", fmt.Sprintf("%q is not 1 to 64 characters of a-z A-Z 0-9 _ -: OpenAI refuses the request (suggested: %q)", clip(c.name), OpenAIName(c.name)))
	}
	if n := len([]rune(c.name)); p.on("profile-name-length") && p.MaxNameLength > 0 && n > p.MaxNameLength {
		c.report("profile-name-length", "/name", fmt.Sprintf("the name has %d characters; %s allows at most %d", n, p.Name, p.MaxNameLength))
	}
	if p.on("profile-schema-openai") {
		checkOpenAISchema(c)
	}
	if p.on("profile-schema-openai-strict") {
		checkOpenAIStrict(c)
	}
	a := c.tool.Get("annotations")
	if p.on("profile-title-missing") && strings.TrimSpace(c.tool.Get("title").String()) == "" && strings.TrimSpace(a.Get("title").String()) == "" {
		c.report("profile-title-missing", "/annotations", "no title: the Connectors Directory requires one on every tool (title, or annotations.title)")
	}
	if p.on("profile-hint-readwrite") && !isBool(a.Get("readOnlyHint")) && !isBool(a.Get("destructiveHint")) {
		c.report("profile-hint-readwrite", "/annotations", "neither readOnlyHint nor destructiveHint is set: say readOnlyHint: true if the tool only reads, destructiveHint if it changes or deletes")
	}
	if p.on("profile-hints-explicit") {
		for _, k := range []string{"readOnlyHint", "openWorldHint", "destructiveHint"} {
			if !isBool(a.Get(k)) {
				c.report("profile-hints-explicit", "/annotations/"+k, k+" is not set to true or false: ChatGPT app review requires all three hints on every tool")
			}
		}
	}
	if p.on("profile-read-write-mixed") {
		checkReadWriteMixed(c)
	}
	if p.on("profile-schema-dialect") {
		for _, k := range []string{"inputSchema", "outputSchema"} {
			if s := c.tool.Get(k); s.IsObject() {
				checkDialect(c, s, "/"+k)
			}
		}
	}
}

func isBool(v *listing.Value) bool { return v != nil && v.Kind == listing.Bool }

// OpenAIName returns a name OpenAI accepts made from name: a valid name as it is, otherwise each
// run of other characters between kept ones becomes one underscore, cut to 64 characters ("tool"
// when nothing is left).
func OpenAIName(name string) string {
	var b strings.Builder
	gap := false
	for _, r := range name {
		if !(r < 128 && (r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')) {
			gap = true
			continue
		}
		if gap && b.Len() > 0 {
			b.WriteByte('_')
		}
		gap = false
		b.WriteRune(r)
		if b.Len() >= 64 {
			break
		}
	}
	s := b.String()
	if len(s) > 64 {
		s = s[:64]
	}
	if s == "" {
		return "tool"
	}
	return s
}

// checkOpenAISchema reports what OpenAI refuses in a function's parameters with or without
// strict mode.
func checkOpenAISchema(c *toolCtx) {
	in := c.tool.Get("inputSchema")
	if in == nil {
		return // OpenAI reads absent parameters as none
	}
	if !in.IsObject() || !typeIs(in.Get("type"), "object") {
		c.report("profile-schema-openai", "/inputSchema", "parameters must be a schema of \"type\": \"object\": OpenAI refuses the request")
	}
	for _, k := range []string{"oneOf", "anyOf", "allOf", "enum", "not", "const"} {
		if in.Get(k) != nil {
			c.report("profile-schema-openai", "/inputSchema/"+k, fmt.Sprintf("%s at the top level of the parameters: OpenAI refuses the request; put the alternatives under a property", k))
		}
	}
	eachSubschema(in, "/inputSchema", func(s *listing.Value, p *path) {
		if typeHas(s.Get("type"), "array") && s.Get("items") == nil && s.Get("prefixItems") == nil {
			c.report("profile-schema-openai", p.String(), "an array schema without items: OpenAI refuses the request (\"array schema missing items\"); say what the elements are")
		}
	})
}

// typeHas reports whether a type keyword names want, alone or in a list.
func typeHas(t *listing.Value, want string) bool {
	if t.IsString() {
		return t.Str == want
	}
	if t != nil && t.Kind == listing.Array {
		for _, it := range t.Items {
			if it.IsString() && it.Str == want {
				return true
			}
		}
	}
	return false
}

// The limits of strict mode's schemas (srcOpenAIStrict).
const (
	strictMaxProperties = 5000
	strictMaxNesting    = 10
	strictMaxEnums      = 1000
)

var strictUnsupported = []string{"allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas"}

// checkOpenAIStrict reports what strict mode refuses in a function's parameters.
func checkOpenAIStrict(c *toolCtx) {
	in := c.tool.Get("inputSchema")
	if !in.IsObject() {
		return
	}
	if in.Get("anyOf") != nil {
		c.report("profile-schema-openai-strict", "/inputSchema/anyOf", "a root anyOf: strict mode needs an object at the root")
	}
	props, enums, deepest, deepAt := 0, 0, 0, ""
	eachSubschema(in, "/inputSchema", func(s *listing.Value, p *path) {
		for _, k := range strictUnsupported {
			if s.Get(k) != nil {
				c.report("profile-schema-openai-strict", p.String()+"/"+k, k+" is not supported in strict mode")
			}
		}
		if e := s.Get("enum"); e != nil && e.Kind == listing.Array {
			enums += len(e.Items)
		}
		if d := nesting(p); d > deepest {
			deepest, deepAt = d, p.String()
		}
		ps := s.Get("properties")
		if !ps.IsObject() && !typeIs(s.Get("type"), "object") {
			return
		}
		fields := ps.Fields()
		props += len(fields)
		var why []string
		if ap := s.Get("additionalProperties"); ap == nil || ap.Kind != listing.Bool || ap.Bool {
			why = append(why, "additionalProperties is not false")
		}
		if missing := notRequired(s, fields); len(missing) > 0 {
			why = append(why, fmt.Sprintf("%d of its properties not required (%s)", len(missing), short(strings.Join(missing, ", "))))
		}
		if len(why) > 0 {
			c.report("profile-schema-openai-strict", p.String(), "strict mode refuses this object: "+strings.Join(why, "; ")+" (make optional fields required with a null type)")
		}
	})
	if props > strictMaxProperties {
		c.report("profile-schema-openai-strict", "/inputSchema", fmt.Sprintf("%d properties: strict mode allows at most %d in one schema", props, strictMaxProperties))
	}
	if deepest > strictMaxNesting {
		c.report("profile-schema-openai-strict", deepAt, fmt.Sprintf("%d levels of nesting: strict mode allows at most %d", deepest, strictMaxNesting))
	}
	if enums > strictMaxEnums {
		c.report("profile-schema-openai-strict", "/inputSchema", fmt.Sprintf("%d enum values: strict mode allows at most %d in one schema", enums, strictMaxEnums))
	}
}

// nesting counts the steps of p that go one level deeper: into a property, the items of an
// array, or additional properties.
func nesting(p *path) int {
	n := 0
	for i, t := range p.toks {
		switch t {
		case "properties", "patternProperties":
			if i+1 < len(p.toks) {
				n++
			}
		case "items", "prefixItems", "additionalProperties":
			n++
		}
	}
	return n
}

// notRequired returns the names of fields that s's required list does not name.
func notRequired(s *listing.Value, fields []listing.Member) []string {
	req := map[string]bool{}
	if r := s.Get("required"); r != nil && r.Kind == listing.Array {
		for _, it := range r.Items {
			req[it.String()] = true
		}
	}
	var out []string
	for _, f := range fields {
		if !req[f.Key] {
			out = append(out, f.Key)
		}
	}
	return out
}

var (
	methodParams = set("method http_method httpMethod verb request_method")
	actionParams = set("action operation op mode command")
	safeMethods  = set("get head options")
	readWords    = set("get list read search fetch find query show view describe lookup retrieve count")
)

// checkReadWriteMixed reports a tool that both reads and writes: by a method or action
// parameter, or by its name.
func checkReadWriteMixed(c *toolCtx) {
	props := c.tool.Get("inputSchema").Get("properties")
	for _, m := range props.Fields() {
		enum := m.Value.Get("enum")
		vals := enumTexts(enum)
		switch {
		case methodParams[m.Key] && enum == nil && typeIs(m.Value.Get("type"), "string"):
			c.report("profile-read-write-mixed", "/inputSchema/properties/"+ptrEsc(m.Key), fmt.Sprintf("the %q parameter takes any HTTP method: a catch-all tool reads and writes; split it into a read-only tool and write tools", m.Key))
		case methodParams[m.Key] && mixes(vals, safeMethods, set("post put patch delete")):
			c.report("profile-read-write-mixed", "/inputSchema/properties/"+ptrEsc(m.Key), fmt.Sprintf("the %q parameter takes safe and unsafe methods (%s): split reads and writes into separate tools", m.Key, short(strings.Join(vals, ", "))))
		case actionParams[m.Key] && mixes(vals, readWords, writeWords):
			c.report("profile-read-write-mixed", "/inputSchema/properties/"+ptrEsc(m.Key), fmt.Sprintf("the %q parameter both reads and writes (%s): split reads and writes into separate tools", m.Key, short(strings.Join(vals, ", "))))
		}
	}
	toks := words.Tokens(c.name)
	if r, w := firstIn(toks, readWords), firstIn(toks, writeWords); r != "" && w != "" && !arithmetic(c.name) {
		c.report("profile-read-write-mixed", "/name", fmt.Sprintf("the name says both %q and %q: split reads and writes into separate tools", r, w))
	}
}

func ptrEsc(k string) string { return strings.TrimPrefix(ptrTok(k), "/") }

func enumTexts(e *listing.Value) []string {
	if e == nil || e.Kind != listing.Array {
		return nil
	}
	var out []string
	for _, it := range e.Items {
		if it.IsString() {
			out = append(out, it.Str)
		}
	}
	return out
}

// mixes reports whether vals holds a word of a and a word of b (compared by the first word of
// each value, in lower case: "get_item" counts as get).
func mixes(vals []string, a, b map[string]bool) bool {
	var ina, inb bool
	for _, v := range vals {
		toks := words.Tokens(v)
		if len(toks) == 0 {
			continue
		}
		ina = ina || a[toks[0]]
		inb = inb || b[toks[0]]
	}
	return ina && inb
}

func firstIn(toks []string, in map[string]bool) string {
	if i := slices.IndexFunc(toks, func(t string) bool { return in[t] }); i >= 0 {
		return toks[i]
	}
	return ""
}

const dialect2020 = "https://json-schema.org/draft/2020-12/schema"

// checkDialect reports a schema outside JSON Schema 2020-12.
func checkDialect(c *toolCtx, s *listing.Value, base string) {
	if d := s.Get("$schema"); d != nil {
		if strings.TrimSuffix(d.String(), "#") != dialect2020 {
			c.report("profile-schema-dialect", base+"/$schema", fmt.Sprintf("$schema is %s: clients need support only JSON Schema 2020-12, the protocol's default", short(string(listing.Marshal(d, "")))))
		}
		return
	}
	eachSubschema(s, base, func(sub *listing.Value, p *path) {
		if it := sub.Get("items"); it != nil && it.Kind == listing.Array {
			c.report("profile-schema-dialect", p.String()+"/items", "items as an array is draft-07's tuple; in 2020-12, the default, items is one schema: use prefixItems")
		}
		for _, k := range []string{"additionalItems", "dependencies", "$recursiveRef"} {
			if sub.Get(k) != nil {
				c.report("profile-schema-dialect", p.String()+"/"+ptrEsc(k), k+" is not a 2020-12 keyword, the protocol's default dialect: 2020-12 ignores it")
			}
		}
	})
}

// checkProfileListing runs the listing-wide rules the configured profile turns on.
func checkProfileListing(c *listCtx) {
	p := c.cfg.prof
	if p == nil {
		return
	}
	if p.on("profile-tools-limit") && p.MaxTools > 0 && len(c.l.Tools) > p.MaxTools {
		c.report("profile-tools-limit", -1, "/tools", fmt.Sprintf("%d tools: %s accepts at most %d in one request", len(c.l.Tools), p.Name, p.MaxTools))
	}
	if p.on("profile-list-result-fields") && c.l.Envelope != nil {
		env := c.l.Envelope
		if v := env.Get("resultType"); v == nil || v.String() != "complete" {
			c.report("profile-list-result-fields", -1, "/resultType", "the result has no resultType \"complete\": revision 2026-07-28 requires it on every result")
		}
		if v := env.Get("ttlMs"); v == nil || v.Kind != listing.Number || strings.ContainsAny(v.Str, ".eE-") {
			c.report("profile-list-result-fields", -1, "/ttlMs", "the result has no ttlMs (a non-negative integer of milliseconds): revision 2026-07-28 requires it on tools/list")
		}
		if v := env.Get("cacheScope"); v.String() != "public" && v.String() != "private" {
			c.report("profile-list-result-fields", -1, "/cacheScope", "the result has no cacheScope (\"public\" or \"private\"): revision 2026-07-28 requires it on tools/list")
		}
	}
}
