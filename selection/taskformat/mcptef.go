package taskformat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/tool-workbench/workbench/listing"
)

// MCPTef is the name of Stacklok's mcp-tef test case format.
const MCPTef = "mcptef"

// tefServer is the server URL written where the model has none: mcp-tef's CLI fills ${VAR}
// placeholders from the environment or its --set option before it reads the file.
const tefServer = "${MCP_SERVER_URL}"

func init() { register(mcptef{}) }

// mcptef is the JSON that mcp-tef's API takes to create test cases (POST /test-cases, the
// TestCaseCreate schema) and its CLI reads with `mtef test-case create --from-file`: one test
// case object or an array of them. A page of its list answer ({"items": [...]}) reads too.
type mcptef struct{}

func (mcptef) Name() string  { return MCPTef }
func (mcptef) Title() string { return "Stacklok mcp-tef test cases (JSON)" }

// Version: followed TestCaseCreate and ExpectedToolCall in mcp-tef-models/src/mcp_tef_models/
// schemas.py and load_test_cases_from_file in cli/src/mcp_tef_cli/commands/test_case.py at
// StacklokLabs/mcp-tef commit 1553c31835eb0d9503725e77f078999673b3088f (2026-03-26), where
// expected_tool_calls replaced the single expected tool (pull request #57, commit f0a4957).
// The single-tool fields of v0.0.3 (commit 80e72202, expected_mcp_server_url,
// expected_tool_name, expected_parameters) are read too and never written.
func (mcptef) Version() string {
	return "mcp-tef TestCaseCreate at StacklokLabs/mcp-tef@1553c31 (expected_tool_calls); v0.0.3's single expected tool is read too"
}

// tefKeys are a test case's members the reader knows.
var tefKeys = []string{"name", "query", "expected_tool_calls", "order_dependent_matching", "available_mcp_servers",
	"expected_mcp_server_url", "expected_tool_name", "expected_parameters", "id", "created_at", "updated_at"}

// Detect claims a JSON object, an array of objects or a list page whose (first) test case has a
// query and one of mcp-tef's snake_case expectation or server members, which no other format
// spells.
func (mcptef) Detect(src []byte) bool {
	if !bytes.Contains(src, []byte(`"query"`)) {
		return false
	}
	v, err := readJSON(src)
	if err != nil {
		return false
	}
	items, _, err := tefItems(v)
	if err != nil {
		return false
	}
	first := items[0]
	return first.Has("query") && (first.Has("available_mcp_servers") || first.Has("expected_tool_calls") || first.Has("expected_tool_name"))
}

func (mcptef) Read(src []byte) ([]Case, []Loss, error) {
	v, err := readJSON(src)
	if err != nil {
		return nil, nil, err
	}
	items, base, err := tefItems(v)
	if err != nil {
		return nil, nil, err
	}
	r := tefReader{servers: map[string]bool{}}
	cases := make([]Case, 0, len(items))
	for i, it := range items {
		c, err := r.item(i, it, fmt.Sprintf("%s/%d", base, i))
		if err != nil {
			return nil, nil, err
		}
		cases = append(cases, c)
	}
	return cases, append(r.losses, r.fileLosses()...), nil
}

// tefItems finds the test cases: one object, an array of them, or a list page's items.
func tefItems(v *listing.Value) ([]*listing.Value, string, error) {
	switch {
	case v.Kind == listing.Object && v.Get("items") != nil && v.Get("query") == nil:
		items := v.Get("items")
		if items.Kind != listing.Array || len(items.Items) == 0 {
			return nil, "", fmt.Errorf("/items holds no test cases; a page of mcp-tef's test cases holds them in a non-empty array")
		}
		if err := checkCount(len(items.Items), "test cases"); err != nil {
			return nil, "", err
		}
		return items.Items, "/items", nil
	case v.Kind == listing.Object:
		return []*listing.Value{v}, "", nil
	case v.Kind == listing.Array:
		if len(v.Items) == 0 {
			return nil, "", fmt.Errorf("the array holds no test cases; write at least one {\"name\", \"query\", \"expected_tool_calls\"} object")
		}
		if err := checkCount(len(v.Items), "test cases"); err != nil {
			return nil, "", err
		}
		return v.Items, "", nil
	default:
		return nil, "", fmt.Errorf("the file holds a %s; mcp-tef test cases are a JSON object or an array of objects", v.Kind)
	}
}

// tefReader reads test cases, gathering what the model has no place for.
type tefReader struct {
	losses  []Loss
	servers map[string]bool // server URLs the file names, other than the placeholder
	stamps  bool            // the file has the server's created_at/updated_at
}

func (r *tefReader) item(i int, it *listing.Value, ptr string) (Case, error) {
	if it.Kind != listing.Object {
		return Case{}, fmt.Errorf("%s: test case %d is a %s; each test case is an object with \"name\" and \"query\"", orRoot(ptr), i+1, it.Kind)
	}
	var c Case
	bad := func(key, want string) error {
		return fmt.Errorf("%s/%s: test case %d's %q is a %s; it must be %s", ptr, key, i+1, key, it.Get(key).Kind, want)
	}
	if q := it.Get("query"); q == nil || q.Kind != listing.String || q.Str == "" {
		if q != nil && q.Kind != listing.String {
			return c, bad("query", "the user's request as a string")
		}
		return c, fmt.Errorf("%s: test case %d has no query; each test case needs the user's request in \"query\"", orRoot(ptr), i+1)
	}
	c.Query = it.Get("query").Str
	for _, k := range []string{"name", "id"} {
		if n := it.Get(k); n != nil && n.Kind != listing.String && n.Kind != listing.Null && !(k == "id" && n.Kind == listing.Number) {
			return c, bad(k, "a string")
		}
	}
	c.Title = it.Get("name").String()
	if id := it.Get("id"); id != nil && id.Kind != listing.Null {
		c.ID = id.Str // a string, or a number's literal
	}
	lose := func(field, msg string) {
		r.losses = append(r.losses, Loss{Case: i, ID: caseLabel(c), Field: field, Message: msg})
	}
	if err := r.serverURLs(it, ptr, i); err != nil {
		return c, err
	}
	calls, err := r.calls(it, ptr, i, &c, lose)
	if err != nil {
		return c, err
	}
	c.Expect, c.None = calls, len(calls) == 0
	for _, m := range it.Fields() {
		switch {
		case m.Key == "created_at" || m.Key == "updated_at":
			r.stamps = true
		case !slices.Contains(tefKeys, m.Key):
			lose(m.Key, "mcp-tef's test case has no such field; dropped it")
		}
	}
	return c, nil
}

// calls reads the expected calls, in the current or the v0.0.3 spelling.
func (r *tefReader) calls(it *listing.Value, ptr string, i int, c *Case, lose func(field, msg string)) ([]Call, error) {
	etc, legacy := it.Get("expected_tool_calls"), it.Get("expected_tool_name")
	if etc != nil && etc.Kind != listing.Null && legacy != nil && legacy.Kind != listing.Null {
		return nil, fmt.Errorf("%s: test case %d has both expected_tool_calls and expected_tool_name; keep expected_tool_calls", orRoot(ptr), i+1)
	}
	if legacy != nil && legacy.Kind != listing.Null {
		if legacy.Kind != listing.String || legacy.Str == "" {
			return nil, fmt.Errorf("%s/expected_tool_name: test case %d's expected tool is not a tool name; write the name as a string", ptr, i+1)
		}
		args, err := tefArgs(it.Get("expected_parameters"), ptr+"/expected_parameters", i)
		if err != nil {
			return nil, err
		}
		return []Call{{Tool: legacy.Str, Args: args}}, nil
	}
	if etc == nil || etc.Kind == listing.Null {
		return nil, nil
	}
	if etc.Kind != listing.Array {
		return nil, fmt.Errorf("%s/expected_tool_calls: test case %d's expected calls are a %s; write an array of {\"mcp_server_url\", \"tool_name\", \"parameters\"} (or null for no tool)", ptr, i+1, etc.Kind)
	}
	var calls []Call
	for j, call := range etc.Items {
		cp := fmt.Sprintf("%s/expected_tool_calls/%d", ptr, j)
		name := call.Get("tool_name")
		if call.Kind != listing.Object || name == nil || name.Kind != listing.String || name.Str == "" {
			return nil, fmt.Errorf("%s: test case %d's expected call %d has no tool_name; each expected call names its tool in \"tool_name\"", cp, i+1, j+1)
		}
		args, err := tefArgs(call.Get("parameters"), cp+"/parameters", i)
		if err != nil {
			return nil, err
		}
		if u := call.Get("mcp_server_url"); u.IsString() && u.Str != tefServer {
			r.servers[u.Str] = true
		}
		for _, m := range call.Fields() {
			if m.Key != "tool_name" && m.Key != "parameters" && m.Key != "mcp_server_url" {
				lose(fmt.Sprintf("expected_tool_calls[%d].%s", j, m.Key), "mcp-tef's expected call has no such field; dropped it")
			}
		}
		calls = append(calls, Call{Tool: name.Str, Args: args})
	}
	if o := it.Get("order_dependent_matching"); o != nil && o.Kind == listing.Bool && o.Bool && len(calls) > 1 {
		lose("order_dependent_matching", "the calls stay in their order, but a task file cannot require that order; it is written back as false")
	}
	return calls, nil
}

// tefArgs reads expected parameters: null (not checked) or an object.
func tefArgs(v *listing.Value, ptr string, i int) (*listing.Value, error) {
	if v == nil || v.Kind == listing.Null {
		return nil, nil
	}
	if v.Kind != listing.Object {
		return nil, fmt.Errorf("%s: test case %d's parameters are a %s; write an object of expected values, or null to leave them unchecked", ptr, i+1, v.Kind)
	}
	return v, nil
}

// serverURLs gathers the server URLs a test case names; the model keeps no server.
func (r *tefReader) serverURLs(it *listing.Value, ptr string, i int) error {
	if u := it.Get("expected_mcp_server_url"); u.IsString() && u.Str != tefServer {
		r.servers[u.Str] = true
	}
	s := it.Get("available_mcp_servers")
	if s == nil || s.Kind == listing.Null {
		return nil
	}
	if s.Kind != listing.Array {
		return fmt.Errorf("%s/available_mcp_servers: test case %d's servers are a %s; write an array of URLs or {\"url\", \"transport\"} objects", ptr, i+1, s.Kind)
	}
	for _, srv := range s.Items {
		u := srv
		if srv.Kind == listing.Object {
			u = srv.Get("url")
			if t := srv.Get("transport"); t.IsString() && t.Str != "streamable-http" && u.IsString() {
				r.servers[u.Str+" ("+t.Str+")"] = true
				continue
			}
		}
		if u.IsString() && u.Str != tefServer {
			r.servers[u.Str] = true
		}
	}
	return nil
}

// fileLosses reports what the file holds beside its test cases.
func (r *tefReader) fileLosses() []Loss {
	var out []Loss
	if len(r.servers) > 0 {
		urls := sortedKeys(r.servers)
		out = append(out, Loss{Case: -1, Field: "available_mcp_servers", Message: fmt.Sprintf(
			"a task names no MCP server; dropped %s (written back as %s)", quoteList(urls, 5), tefServer)})
	}
	if r.stamps {
		out = append(out, Loss{Case: -1, Field: "created_at", Message: "dropped the server's created_at and updated_at times"})
	}
	return out
}

func orRoot(ptr string) string {
	if ptr == "" {
		return "the file"
	}
	return ptr
}

// tefCase and tefCall are what Write writes, in the order mcp-tef's documentation lists them.
type tefCase struct {
	Name                   string    `json:"name"`
	Query                  string    `json:"query"`
	AvailableMCPServers    []string  `json:"available_mcp_servers"`
	ExpectedToolCalls      []tefCall `json:"expected_tool_calls"`
	OrderDependentMatching bool      `json:"order_dependent_matching"`
}

type tefCall struct {
	MCPServerURL string         `json:"mcp_server_url"`
	ToolName     string         `json:"tool_name"`
	Parameters   *listing.Value `json:"parameters"`
}

func (mcptef) Write(cases []Case) ([]byte, []Loss, error) {
	var losses lossList
	out := make([]tefCase, len(cases))
	for i, c := range cases {
		lose := losses.of(i, c)
		tc := tefCase{Name: c.Title, Query: c.Query, AvailableMCPServers: []string{tefServer}}
		switch {
		case tc.Name == "" && c.ID != "":
			tc.Name = c.ID
		case tc.Name == "":
			tc.Name = fmt.Sprintf("case %d", i+1)
		case c.ID != "" && c.ID != c.Title:
			lose("id", fmt.Sprintf("mcp-tef gives a test case its own id; dropped %q (the name is %q)", c.ID, c.Title))
		}
		tc.ExpectedToolCalls = tefCalls(c, lose)
		if len(c.Reject) > 0 {
			lose("reject", fmt.Sprintf("mcp-tef cannot name tools that must not be called; dropped %v", c.Reject))
		}
		if len(c.Tags) > 0 {
			lose("tags", fmt.Sprintf("mcp-tef's test case has no tags; dropped %v", c.Tags))
		}
		out[i] = tc
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, nil, fmt.Errorf("encode mcp-tef test cases: %w", err)
	}
	if len(cases) > 0 {
		losses = append(losses, Loss{Case: -1, Field: "available_mcp_servers", Message: fmt.Sprintf(
			"the tasks name no MCP server; wrote %s, which `mtef test-case create --from-file` fills in from the environment or --set", tefServer)})
	}
	return append(b, '\n'), losses, nil
}

// tefCalls writes a case's expected calls: mcp-tef expects every call it lists.
func tefCalls(c Case, lose func(field, msg string)) []tefCall {
	expect := c.Expect
	switch {
	case c.None:
		return nil
	case len(expect) == 0:
		lose("expect", "the case names no expected tool and does not say none should be called; written as no tool expected")
		return nil
	case c.AnyOf && len(expect) > 1:
		lose("expect", fmt.Sprintf("mcp-tef expects every call it lists and cannot say any one of %d tools (%s) is right; kept %s", len(expect), toolNames(expect), expect[0].Tool))
		expect = expect[:1]
	}
	calls := make([]tefCall, len(expect))
	for j, e := range expect {
		calls[j] = tefCall{MCPServerURL: tefServer, ToolName: e.Tool}
		switch {
		case e.Args == nil || e.Args.Kind == listing.Null:
		case e.Args.Kind == listing.Object:
			calls[j].Parameters = e.Args
		default:
			lose(fmt.Sprintf("expect[%d].args", j), fmt.Sprintf("mcp-tef's parameters are an object; dropped arguments that are a %s", e.Args.Kind))
		}
	}
	return calls
}
