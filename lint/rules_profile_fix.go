package lint

import (
	"fmt"
	"strings"
)

// The repairs of the profile rules, and the fix each rule declares (the rules' literals carry
// them: register takes a declaration given there).
func init() {
	repairers["profile-name-openai"] = repairOpenAIName
	repairers["profile-title-missing"] = repairTitle
	repairers["profile-hint-readwrite"] = repairProfileHints
	repairers["profile-hints-explicit"] = repairProfileHints
}

var profileFixes = map[string]fixDoc{
	"profile-name-openai":          {FixSuggested, "renames the tool to a name OpenAI accepts (each run of other characters becomes one underscore, cut to 64); mentions in other descriptions and task expects follow"},
	"profile-name-length":          {FixNone, "a shorter name that still says what the tool does needs a person"},
	"profile-schema-openai":        {FixNone, "what an array's elements are, or how to restate top-level alternatives as one object, only the server's author knows"},
	"profile-schema-openai-strict": {FixNone, "strict mode changes the contract (optional fields become required and nullable, extra arguments are refused): the server's author opts in"},
	"profile-tools-limit":          {FixNone, "which tools to drop or move to another server is a design decision"},
	"profile-title-missing":        {FixSuggested, "adds a title made of the name's words (tickets_search: \"Tickets search\") for a person to confirm or reword"},
	"profile-hint-readwrite":       {FixSuggested, "sets the hint the name's verb implies (readOnlyHint: true for get, list, search…; destructiveHint for a write verb), each hint its own repair"},
	"profile-read-write-mixed":     {FixNone, "splitting a tool into a read tool and write tools changes the server's code"},
	"profile-hints-explicit":       {FixSuggested, "sets readOnlyHint and destructiveHint as the name's verb implies (a read: true and false); openWorldHint needs a person, who knows whether the tool reaches outside systems"},
	"profile-schema-dialect":       {FixNone, "rewriting a schema into another dialect can change what it accepts; a person checks each keyword"},
	"profile-list-result-fields":   {FixNone, "the server must send them, and how long its list stays fresh (ttlMs) and whether it varies by caller (cacheScope) only its author knows"},
}

// repairOpenAIName renames the finding's tool to OpenAIName of its name, unless another tool has
// that name.
func repairOpenAIName(c *fixCtx, f Finding) []Repair {
	l := c.l
	t, _ := findingTool(l, f)
	if t == nil {
		return nil
	}
	to := OpenAIName(t.Get("name").String())
	if c.nameSet()[to] {
		return nil
	}
	return []Repair{renameRepair(l, f, c.textIndex(), f.ToolIndex, to, "a name OpenAI accepts")}
}

// titleOf is a title made of the name's words: "tickets_search" gives "Tickets search".
func titleOf(name string) string {
	toks := nameParts(name)
	if len(toks) == 0 {
		return ""
	}
	s := strings.Join(toks, " ")
	return strings.ToUpper(s[:1]) + s[1:]
}

// repairTitle adds a title made of the name's words.
func repairTitle(c *fixCtx, f Finding) []Repair {
	l := c.l
	t, _ := findingTool(l, f)
	if t == nil {
		return nil
	}
	title := titleOf(t.Get("name").String())
	if title == "" || len(title) > 200 {
		return nil
	}
	return []Repair{newRepair(l, f, title, fmt.Sprintf("Add the title %q (from the name)", title),
		setString("/tools/"+itoa(f.ToolIndex)+"/title", title))}
}

// repairProfileHints sets the hints the name's verb implies that the tool does not set: for
// profile-hints-explicit only the hint the finding names, with destructiveHint: false on a tool
// that only reads.
func repairProfileHints(c *fixCtx, f Finding) []Repair {
	l := c.l
	t, toks := findingTool(l, f)
	if t == nil {
		return nil
	}
	verb, hs := proposedHints(t.Get("name").String())
	if len(hs) == 1 && hs[0].key == "readOnlyHint" && hs[0].val {
		hs = append(hs, hint{"destructiveHint", false})
	}
	var out []Repair
	for _, h := range hs {
		if t.Get("annotations").Get(h.key) != nil {
			continue
		}
		if f.Rule == "profile-hints-explicit" && (len(toks) != 2 || toks[1] != h.key) {
			continue
		}
		if op := setHint(t, f.ToolIndex, h); op != nil {
			out = append(out, newRepair(l, f, fmt.Sprintf("%s=%t", h.key, h.val), fmt.Sprintf("Set %s: %t (the name says %q)", h.key, h.val, verb), *op))
		}
	}
	return out
}
