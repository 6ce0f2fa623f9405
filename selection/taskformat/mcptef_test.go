package taskformat

import (
	"testing"
)

// TestMCPTefWriteLosses: mcp-tef expects every call it lists, with parameters as an object;
// what else a case says is reported.
func TestMCPTefWriteLosses(t *testing.T) {
	obj, num := mustValue(t, `{"book_id": "b-1"}`), mustValue(t, `3`)
	tests := []struct {
		name string
		c    Case
		want []string
	}{
		{"carried whole", Case{Title: "A", Query: "q", Expect: []Call{{Tool: "x", Args: obj}, {Tool: "y"}}}, []string{"available_mcp_servers"}},
		{"none", Case{ID: "a", Query: "q", None: true}, []string{"available_mcp_servers"}},
		{"any of", Case{Query: "q", AnyOf: true, Expect: []Call{{Tool: "x"}, {Tool: "y"}}}, []string{"expect", "available_mcp_servers"}},
		{"arguments not an object", Case{Query: "q", Expect: []Call{{Tool: "x", Args: num}}}, []string{"expect[0].args", "available_mcp_servers"}},
		{"id beside the name", Case{ID: "a", Title: "A", Query: "q", None: true}, []string{"id", "available_mcp_servers"}},
		{"reject and tags", Case{Query: "q", None: true, Reject: []string{"x"}, Tags: []string{"t"}}, []string{"reject", "tags", "available_mcp_servers"}},
		{"nothing expected", Case{Query: "q"}, []string{"expect", "available_mcp_servers"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkWriteLosses(t, mcptef{}, tt.c, tt.want)
		})
	}
}

// TestMCPTefRead: the current and the v0.0.3 spelling, a list page, and what the model has no
// place for; bad test cases are refused with a JSON pointer.
func TestMCPTefRead(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
		expect    string // the first case, as parts shows it
		err       string
	}{
		{"no tool", `{"name": "n", "query": "q", "available_mcp_servers": ["${MCP_SERVER_URL}"], "expected_tool_calls": []}`, nil, "expect=[] reject=[] none=true", ""},
		{"calls", `[{"name": "n", "query": "q", "expected_tool_calls": [{"mcp_server_url": "http://a/mcp", "tool_name": "x"}, {"mcp_server_url": "http://a/mcp", "tool_name": "y"}]}]`,
			[]string{"available_mcp_servers"}, "expect=[x y] reject=[] none=false", ""},
		{"ordered", `[{"query": "q", "order_dependent_matching": true, "expected_tool_calls": [{"tool_name": "x"}, {"tool_name": "y"}]}]`,
			[]string{"order_dependent_matching"}, "expect=[x y] reject=[] none=false", ""},
		{"v0.0.3", `{"name": "n", "query": "q", "expected_mcp_server_url": "${MCP_SERVER_URL}", "expected_tool_name": "x", "expected_parameters": {"a": 1}}`, nil, `expect=[x{"a":1}] reject=[] none=false`, ""},
		{"sse server", `{"query": "q", "available_mcp_servers": [{"url": "http://a/sse", "transport": "sse"}]}`, []string{"available_mcp_servers"}, "expect=[] reject=[] none=true", ""},
		{"list page", `{"items": [{"id": "9f2", "name": "n", "query": "q", "created_at": "2026-01-01T00:00:00Z"}], "total": 1}`, []string{"created_at"}, "expect=[] reject=[] none=true", ""},
		{"unknown members", `{"query": "q", "model": "m", "expected_tool_calls": [{"tool_name": "x", "weight": 2}]}`,
			[]string{"expected_tool_calls[0].weight", "model"}, "expect=[x] reject=[] none=false", ""},
		{"no query", `[{"name": "n"}]`, nil, "", "/0: test case 1 has no query"},
		{"call without a tool", `{"query": "q", "expected_tool_calls": [{"parameters": {}}]}`, nil, "", "/expected_tool_calls/0"},
		{"parameters not an object", `{"query": "q", "expected_tool_calls": [{"tool_name": "x", "parameters": [1]}]}`, nil, "", "/expected_tool_calls/0/parameters"},
		{"both spellings", `{"query": "q", "expected_tool_calls": [], "expected_tool_name": "x"}`, nil, "", "both"},
		{"empty array", `[]`, nil, "", "no test cases"},
		{"a string", `"q"`, nil, "", "JSON object or an array"},
		{"not JSON", `{"query": `, nil, "", "does not parse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkRead(t, mcptef{}, tt.src, tt.err, tt.want, tt.expect)
		})
	}
}
