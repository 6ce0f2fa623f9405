package lint

import (
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/listing"
)

type profileCase struct {
	profile, rule string
	bad, good     string // listings (JSON); bad must fire rule under profile, good must not
}

// A tool every profile accepts: titled, all hints explicit, strict-mode schema.
var profileOKTool = tool(map[string]string{
	"title":       `"Get ticket"`,
	"annotations": `{"readOnlyHint": true, "openWorldHint": false, "destructiveHint": false}`,
	"inputSchema": `{"type": "object", "properties": {"ticket_id": {"type": "integer", "description": "Numeric ticket id."}}, "required": ["ticket_id"], "additionalProperties": false}`,
})

// profileTool is profileOKTool with fields replaced (raw JSON values).
func profileTool(fields map[string]string) string {
	all := map[string]string{
		"title":       `"Get ticket"`,
		"annotations": `{"readOnlyHint": true, "openWorldHint": false, "destructiveHint": false}`,
		"inputSchema": `{"type": "object", "properties": {"ticket_id": {"type": "integer", "description": "Numeric ticket id."}}, "required": ["ticket_id"], "additionalProperties": false}`,
	}
	for k, v := range fields {
		all[k] = v
	}
	return tool(all)
}

func schemaTool(s string) string { return profileTool(map[string]string{"inputSchema": s}) }

func profileCases() []profileCase {
	mixedMethod := schemaTool(`{"type": "object", "properties": {"method": {"type": "string", "enum": ["GET", "POST", "DELETE"], "description": "HTTP method."}}, "required": ["method"], "additionalProperties": false}`)
	readMethod := schemaTool(`{"type": "object", "properties": {"method": {"type": "string", "enum": ["GET", "HEAD"], "description": "HTTP method."}}, "required": ["method"], "additionalProperties": false}`)
	return []profileCase{
		{"openai-functions", "profile-name-openai", profileTool(map[string]string{"name": `"tickets.get"`}), profileOKTool},
		{"openai-functions", "profile-name-openai", profileTool(map[string]string{"name": `"` + strings.Repeat("a", 65) + `"`}), profileTool(map[string]string{"name": `"` + strings.Repeat("a", 64) + `"`})},
		{"openai-functions", "profile-schema-openai", schemaTool(`{"type": "object", "properties": {"ids": {"type": "array", "description": "Ids."}}}`), schemaTool(`{"type": "object", "properties": {"ids": {"type": "array", "items": {"type": "string"}, "description": "Ids."}}}`)},
		{"openai-functions", "profile-schema-openai", schemaTool(`{"type": "object", "anyOf": [{"required": ["a"]}, {"required": ["b"]}], "properties": {"a": {"type": "string", "description": "A."}, "b": {"type": "string", "description": "B."}}}`), profileOKTool},
		{"openai-functions", "profile-schema-openai-strict", tool(nil), profileOKTool},
		{"openai-functions", "profile-schema-openai-strict", schemaTool(`{"type": "object", "properties": {"a": {"type": "string", "description": "A."}, "b": {"type": "string", "description": "B."}}, "required": ["a"], "additionalProperties": false}`), schemaTool(`{"type": "object", "properties": {"a": {"type": "string", "description": "A."}, "b": {"type": ["string", "null"], "description": "B."}}, "required": ["a", "b"], "additionalProperties": false}`)},
		{"openai-functions", "profile-schema-openai-strict", schemaTool(`{"type": "object", "properties": {"a": {"allOf": [{"type": "string"}], "description": "A."}}, "required": ["a"], "additionalProperties": false}`), profileOKTool},
		{"openai-functions", "profile-tools-limit", manyTools(129), manyTools(128)},
		{"claude-connectors", "profile-title-missing", tool(nil), profileOKTool},
		{"claude-connectors", "profile-title-missing", profileTool(map[string]string{"title": `"  "`}), profileTool(map[string]string{"title": `null`, "annotations": `{"title": "Get ticket", "readOnlyHint": true}`})},
		{"claude-connectors", "profile-hint-readwrite", profileTool(map[string]string{"annotations": `{"openWorldHint": false}`}), profileTool(map[string]string{"annotations": `{"destructiveHint": false}`})},
		{"claude-connectors", "profile-name-length", profileTool(map[string]string{"name": `"` + strings.Repeat("é", 65) + `"`}), profileTool(map[string]string{"name": `"` + strings.Repeat("é", 64) + `"`})},
		{"claude-connectors", "profile-read-write-mixed", mixedMethod, readMethod},
		{"claude-connectors", "profile-read-write-mixed", schemaTool(`{"type": "object", "properties": {"method": {"type": "string", "description": "HTTP method."}}}`), readMethod},
		{"claude-connectors", "profile-read-write-mixed", schemaTool(`{"type": "object", "properties": {"action": {"type": "string", "enum": ["list", "create", "delete"], "description": "What to do."}}}`), schemaTool(`{"type": "object", "properties": {"action": {"type": "string", "enum": ["list", "search"], "description": "What to do."}}}`)},
		{"chatgpt-apps", "profile-read-write-mixed", profileTool(map[string]string{"name": `"tickets_get_or_create"`}), profileOKTool},
		{"chatgpt-apps", "profile-hints-explicit", tool(nil), profileOKTool},
		{"chatgpt-apps", "profile-hints-explicit", profileTool(map[string]string{"annotations": `{"readOnlyHint": true, "openWorldHint": null, "destructiveHint": false}`}), profileOKTool},
		{"mcp-2025-11-25", "profile-schema-dialect", schemaTool(`{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}`), schemaTool(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}`)},
		{"mcp-2026-07-28", "profile-schema-dialect", schemaTool(`{"type": "object", "properties": {"p": {"type": "array", "items": [{"type": "number"}], "description": "P."}}}`), schemaTool(`{"type": "object", "properties": {"p": {"type": "array", "prefixItems": [{"type": "number"}], "items": false, "description": "P."}}}`)},
		{"mcp-2026-07-28", "profile-schema-dialect", profileTool(map[string]string{"outputSchema": `{"type": "object", "dependencies": {"a": ["b"]}}`}), profileTool(map[string]string{"outputSchema": `{"type": "object", "dependentRequired": {"a": ["b"]}}`})},
		{"mcp-2026-07-28", "profile-list-result-fields", `{"tools": ` + profileOKTool + `}`, `{"resultType": "complete", "tools": ` + profileOKTool + `, "ttlMs": 300000, "cacheScope": "public"}`},
		{"mcp-2026-07-28", "profile-list-result-fields", `{"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "tools": ` + profileOKTool + `, "ttlMs": 1.5, "cacheScope": "public"}}`, profileOKTool},
		{"mcp-2026-07-28", "profile-list-result-fields", `{"resultType": "complete", "tools": ` + profileOKTool + `, "ttlMs": 0, "cacheScope": "shared"}`, `{"resultType": "complete", "tools": ` + profileOKTool + `, "ttlMs": 0, "cacheScope": "private"}`},
	}
}

func TestProfileRules(t *testing.T) {
	covered := map[string]bool{}
	for i, c := range profileCases() {
		covered[c.rule] = true
		t.Run(c.profile+"/"+c.rule+"/"+itoa(i), func(t *testing.T) {
			if fs := lintText(t, c.bad, Config{Profile: c.profile}); !has(fs, c.rule) {
				t.Errorf("bad fixture does not fire %s under %s; findings: %v", c.rule, c.profile, fs)
			}
			if fs := lintText(t, c.good, Config{Profile: c.profile}); has(fs, c.rule) {
				t.Errorf("good fixture fires %s under %s: %v", c.rule, c.profile, fs)
			}
			// Without the profile the rule is off.
			if fs := lintText(t, c.bad, Config{}); has(fs, c.rule) {
				t.Errorf("%s fires without a profile: %v", c.rule, fs)
			}
		})
	}
	for id := range profileRules {
		if !covered[id] {
			t.Errorf("profile rule %s has no fixture in profileCases", id)
		}
	}
}

// Every profile names registered rules, and every profile rule belongs to a profile; the base
// tool passes every profile.
func TestProfilesConsistent(t *testing.T) {
	used := map[string]bool{}
	for _, p := range Profiles() {
		if len(p.Sources) == 0 || p.Title == "" || p.Summary == "" {
			t.Errorf("%s: profile without title, summary or sources", p.Name)
		}
		for _, ids := range [][]string{p.Rules, p.Enforces} {
			for _, id := range ids {
				if Lookup(id) == nil {
					t.Errorf("%s names unknown rule %s", p.Name, id)
				}
				used[id] = true
			}
		}
		for id := range p.Severity {
			if Lookup(id) == nil {
				t.Errorf("%s changes the severity of unknown rule %s", p.Name, id)
			}
		}
		for _, id := range p.Rules {
			if !ProfileOnly(id) {
				t.Errorf("%s turns on %s, which is always on: list it in Enforces", p.Name, id)
			}
		}
		if fs := lintText(t, profileOKTool, Config{Profile: p.Name}); len(fs) > 0 {
			t.Errorf("%s: the base tool has findings: %v", p.Name, fs)
		}
	}
	for id := range profileRules {
		if !used[id] {
			t.Errorf("profile rule %s belongs to no profile", id)
		}
	}
}

func TestProfileSeverityAndRevision(t *testing.T) {
	out := profileTool(map[string]string{"outputSchema": `{"type": "string"}`})
	for _, tt := range []struct {
		profile string
		want    Severity
	}{{"", Warning}, {"mcp-2025-11-25", Error}, {"mcp-2026-07-28", Warning}} {
		var got Severity
		var msg string
		for _, f := range lintText(t, out, Config{Profile: tt.profile}) {
			if f.Rule == "output-schema-root" {
				got, msg = f.Severity, f.Message
			}
		}
		if got != tt.want {
			t.Errorf("profile %q: output-schema-root is %q, want %q", tt.profile, got, tt.want)
		}
		if tt.profile == "mcp-2025-11-25" && !strings.Contains(msg, "2025-11-25") {
			t.Errorf("profile %q: the message does not follow the profile's revision: %s", tt.profile, msg)
		}
	}
}

func TestLookupProfile(t *testing.T) {
	if p, err := LookupProfile(""); p != nil || err != nil {
		t.Errorf("empty name: %v %v", p, err)
	}
	if p, err := LookupProfile("claude-connectors"); err != nil || p.Name != "claude-connectors" {
		t.Errorf("claude-connectors: %v %v", p, err)
	}
	_, err := LookupProfile("claude")
	if err == nil || !strings.Contains(err.Error(), "openai-functions, claude-connectors, chatgpt-apps, mcp-2025-11-25, mcp-2026-07-28") {
		t.Errorf("unknown profile: %v", err)
	}
}

func TestOpenAIName(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"admin.users.list", "admin_users_list"},
		{"get user", "get_user"},
		{"ok-name_1", "ok-name_1"},
		{"..", "tool"},
		{"日本.search", "search"},
		{strings.Repeat("ab.", 40), strings.Repeat("ab_", 22)[:64]},
		{"a_", "a_"},
	} {
		got := OpenAIName(tt.in)
		if got != tt.want || !openAIName.MatchString(got) {
			t.Errorf("OpenAIName(%q) = %q, want %q (and a valid name)", tt.in, got, tt.want)
		}
	}
}

func FuzzOpenAIName(f *testing.F) {
	for _, s := range []string{"admin.users.list", "", "a b", strings.Repeat("x", 100), "日本語", "_-_"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := OpenAIName(s)
		if !openAIName.MatchString(got) {
			t.Fatalf("OpenAIName(%q) = %q, which OpenAI refuses", s, got)
		}
		if openAIName.MatchString(s) && got != s {
			t.Fatalf("OpenAIName(%q) = %q changed a valid name", s, got)
		}
	})
}

// The profile rules' repairs clear their findings, and a rule declared without one offers none.
func TestProfileRepairs(t *testing.T) {
	tests := []struct {
		profile, rule, src string
		title              string // a word of the repair's title
	}{
		{"openai-functions", "profile-name-openai", profileTool(map[string]string{"name": `"tickets.get"`}), "tickets_get"},
		{"claude-connectors", "profile-title-missing", tool(nil), `"Tickets get"`},
		{"claude-connectors", "profile-hint-readwrite", profileTool(map[string]string{"annotations": `{"openWorldHint": false}`}), "readOnlyHint: true"},
		{"chatgpt-apps", "profile-hints-explicit", profileTool(map[string]string{"annotations": `{"readOnlyHint": true, "openWorldHint": false}`}), "destructiveHint: false"},
		{"claude-connectors", "profile-read-write-mixed", profileTool(map[string]string{"name": `"tickets_get_or_create"`}), ""},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			l, err := listing.Parse([]byte(tt.src), listing.Options{})
			if err != nil {
				t.Fatal(err)
			}
			lt := New(Config{Profile: tt.profile})
			var mine []Repair
			for _, r := range Repairs(l, lt.Lint(l)) {
				if r.Rule == tt.rule {
					mine = append(mine, r)
				}
			}
			if tt.title == "" {
				if len(mine) > 0 || Lookup(tt.rule).Fix != FixNone {
					t.Fatalf("%s declares no repair but offers %v", tt.rule, mine)
				}
				return
			}
			if len(mine) == 0 || !strings.Contains(mine[0].Title, tt.title) || mine[0].Kind != FixSuggested {
				t.Fatalf("repairs %+v; want a suggested one titled with %q", mine, tt.title)
			}
			for _, r := range mine {
				if l, err = l.ApplyAll(r.Ops); err != nil {
					t.Fatal(err)
				}
			}
			if fs := lt.Lint(l); has(fs, tt.rule) {
				t.Errorf("after the repairs %s still fires: %v", tt.rule, fs)
			}
		})
	}
}
