package lint

import (
	"fmt"
	"strings"
)

// Profile is what a directory or platform enforces on a listing: rules it turns on (the
// profile-* rules are off without a profile), severity changes of rules that are always on, the
// protocol revision it targets, and its sources.
type Profile struct {
	Name    string `json:"name"`
	Title   string `json:"title"`
	Summary string `json:"summary"`
	// Rules are the rules the profile turns on, in the order `workbench rules --profile` lists them.
	Rules []string `json:"rules"`
	// Enforces are rules that are always on and that the profile's source requires too.
	Enforces []string `json:"enforces,omitempty"`
	// Severity raises (or lowers) rules for this profile.
	Severity map[string]Severity `json:"severity,omitempty"`
	// Revision is the protocol revision the profile targets ("" leaves Config.Revision alone).
	Revision string `json:"revision,omitempty"`
	// MaxNameLength bounds tool names (profile-name-length); 0 when the profile sets none.
	MaxNameLength int `json:"maxNameLength,omitempty"`
	// MaxTools bounds the listing's tools (profile-tools-limit); 0 when the profile sets none.
	MaxTools int      `json:"maxTools,omitempty"`
	Sources  []Source `json:"sources"`
}

// Source is one published requirement a profile follows: where, and what was taken from it.
type Source struct {
	URL  string `json:"url"`
	Used string `json:"used"`
}

// The sources, named once: rule docs cite them too.
const (
	srcOpenAIRef      = "https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools"
	srcOpenAIStrict   = "https://developers.openai.com/api/docs/guides/structured-outputs#supported-schemas"
	srcOpenAIFunc     = "https://platform.openai.com/docs/guides/function-calling"
	srcClaudeReview   = "https://claude.com/docs/connectors/building/review-criteria"
	srcClaudePolicy   = "https://support.anthropic.com/en/articles/11697096-anthropic-mcp-directory-policy"
	srcAppsTools      = "https://developers.openai.com/apps-sdk/plan/tools"
	srcAppsSubmission = "https://github.com/openai/plugins/blob/main/plugins/chatgpt-apps/skills/mcp-tool-hint-justifications/SKILL.md"
	srcSpec20251125   = "https://modelcontextprotocol.io/specification/2025-11-25/server/tools"
	srcSpec20260728   = "https://modelcontextprotocol.io/specification/2026-07-28/server/tools"
	srcChange20260728 = "https://modelcontextprotocol.io/specification/2026-07-28/changelog"
)

var profiles = []*Profile{
	{Name: "openai-functions", Title: "OpenAI function calling",
		Summary:  "names OpenAI accepts, parameter schemas it does not refuse (and what strict mode refuses), at most 128 tools",
		Rules:    []string{"profile-name-openai", "profile-schema-openai", "profile-schema-openai-strict", "profile-tools-limit"},
		Enforces: []string{"schema-root-object", "schema-invalid"}, MaxTools: 128,
		Severity: map[string]Severity{"schema-root-object": Error},
		Sources: []Source{
			{srcOpenAIRef, "function.name: a-z, A-Z, 0-9, underscores and dashes, at most 64 characters (the API answers 400 to anything else, e.g. a dot: \"does not match ^[a-zA-Z0-9_-]{1,64}$\"); tools: a max of 128 functions"},
			{srcOpenAIFunc, "parameters is a JSON Schema object; strict: true makes the call follow the schema and needs a schema strict mode supports"},
			{srcOpenAIStrict, "strict mode's subset: root an object and not anyOf; additionalProperties: false on every object; every property required; allOf, not, if/then/else, dependentRequired, dependentSchemas unsupported; at most 5000 properties, 10 levels of nesting, 1000 enum values"},
			{"https://github.com/langchain-ai/langchainjs/issues/9804", "the 400 error without strict mode: \"schema must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level\""},
			{"https://github.com/mark3labs/mcp-filesystem-server/pull/23", "the 400 error without strict mode: \"In context=('properties', 'paths'), array schema missing items\""},
		}},
	{Name: "claude-connectors", Title: "Anthropic Connectors Directory",
		Summary:  "every tool titled and carrying readOnlyHint or destructiveHint, names of at most 64 characters, read and write in separate tools, no wording aimed at the model",
		Rules:    []string{"profile-title-missing", "profile-hint-readwrite", "profile-name-length", "profile-read-write-mixed"},
		Enforces: []string{"instructions-to-model", "promotional-wording", "tool-shadowing", "hidden-unicode"}, MaxNameLength: 64,
		Severity: map[string]Severity{"promotional-wording": Error},
		Sources: []Source{
			{srcClaudeReview, "\"Every tool must include a title and the applicable hint: readOnlyHint: true for read-only tools, destructiveHint: true for tools that modify or delete data\"; \"Tool names must be 64 characters or fewer\"; a tool that takes both safe and unsafe methods (a catch-all api_request with a method parameter) is rejected: split read and write; avoid prompt-injection patterns in descriptions"},
			{srcClaudePolicy, "descriptions must narrowly and unambiguously describe what the tool does and when to invoke it, must match actual functionality, and must not include unexpected functionality or promote the server over others"},
		}},
	{Name: "chatgpt-apps", Title: "OpenAI Apps SDK (ChatGPT apps)",
		Summary:  "readOnlyHint, openWorldHint and destructiveHint set explicitly (true or false) on every tool",
		Rules:    []string{"profile-hints-explicit", "profile-read-write-mixed"},
		Enforces: []string{"annotations-contradict", "annotations-readonly-writes"},
		Severity: map[string]Severity{"annotations-missing": Error},
		Sources: []Source{
			{srcAppsSubmission, "OpenAI's own skill for the Apps submission form: \"ChatGPT Apps submissions require every tool to set all three hints\" (readOnlyHint, openWorldHint, destructiveHint), each with a justification"},
			{"https://github.com/Teamwork/mcp/pull/420", "a submission rejected because 190 tools omitted openWorldHint and/or destructiveHint"},
			{"https://community.openai.com/t/rejected-for-annotations-do-not-appear-to-match-the-tools-behavior-with-all-hints-set-explicitly-what-else-is-expected/1413175", "the review's wording: hints explicitly true or false, not null, for every tool"},
			{srcAppsTools, "\"If you need both read and write behavior, create separate tools so ChatGPT can respect confirmation flows for write actions\""},
		}},
	{Name: "mcp-2025-11-25", Title: "MCP revision 2025-11-25",
		Summary:  "tool names of 1 to 128 characters of A-Z a-z 0-9 _ - .; JSON Schema 2020-12 as the default dialect; an output schema's root an object (structured content is an object)",
		Rules:    []string{"profile-schema-dialect"},
		Enforces: []string{"name-spec", "name-unique", "input-schema", "schema-root-object", "output-schema-root", "schema-invalid"},
		Severity: map[string]Severity{"output-schema-root": Error}, Revision: "2025-11-25",
		Sources: []Source{
			{srcSpec20251125, "tool names SHOULD be 1 to 128 characters of A-Z a-z 0-9 _ - . and unique; inputSchema and outputSchema default to JSON Schema 2020-12 when $schema is absent; structuredContent is an object, so an outputSchema's root is an object"},
			{"https://modelcontextprotocol.io/specification/2025-11-25/basic#json-schema-usage", "schemas without $schema are 2020-12; clients and servers MUST support 2020-12 and need not support other dialects"},
		}},
	{Name: "mcp-2026-07-28", Title: "MCP revision 2026-07-28",
		Summary:  "2025-11-25's names and dialect; a tools/list result carrying resultType, ttlMs and cacheScope (the deterministic order it also asks for takes two fetches to see)",
		Rules:    []string{"profile-schema-dialect", "profile-list-result-fields"},
		Enforces: []string{"name-spec", "name-unique", "input-schema", "schema-root-object", "output-schema-root", "schema-invalid"},
		Revision: "2026-07-28",
		Sources: []Source{
			{srcSpec20260728, "names as in 2025-11-25; schemas default to 2020-12; structuredContent may be any JSON value; servers SHOULD return tools in a deterministic order; tools/list results carry ttlMs and cacheScope"},
			{srcChange20260728, "minor change 5: ttlMs and cacheScope are required on tools/list results (CacheableResult, SEP-2549); major change 8: every result carries a required resultType; minor change 3: deterministic order of tools/list"},
		}},
}

// Profiles returns every profile, in a fixed order.
func Profiles() []*Profile { return profiles }

// ProfileNames lists the profiles' names.
func ProfileNames() []string {
	out := make([]string, len(profiles))
	for i, p := range profiles {
		out[i] = p.Name
	}
	return out
}

// LookupProfile returns the profile called name. An unknown name is an error that lists the valid
// names; "" is no profile (nil, nil).
func LookupProfile(name string) (*Profile, error) {
	if name == "" {
		return nil, nil
	}
	for _, p := range profiles {
		if p.Name == name {
			return p, nil
		}
	}
	return nil, fmt.Errorf("unknown profile %q; use one of %s", clip(name), strings.Join(ProfileNames(), ", "))
}

// Profile names the profile lt follows ("" for none).
func (lt *Linter) Profile() string { return lt.cfg.Profile }

// profileRules are the rules that only a profile turns on.
var profileRules = map[string]bool{}

// ProfileOnly reports whether rule id runs only under a profile that turns it on.
func ProfileOnly(id string) bool { return profileRules[id] }

// on reports whether the profile turns rule id on.
func (p *Profile) on(id string) bool {
	if p == nil {
		return false
	}
	for _, r := range p.Rules {
		if r == id {
			return true
		}
	}
	return false
}

// severity is the severity of r under p.
func (p *Profile) severity(r *Rule) Severity {
	if p != nil {
		if s, ok := p.Severity[r.ID]; ok {
			return s
		}
	}
	return r.Severity
}
