package taskformat

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/tool-workbench/workbench/listing"
)

// MCPJam is the name of MCPJam's eval suite format.
const MCPJam = "mcpjam"

func init() { register(mcpjam{}) }

// mcpjam is MCPJam's eval suite file, and, for reading only, the tests file of the evals CLI
// it replaced.
type mcpjam struct{}

func (mcpjam) Name() string  { return MCPJam }
func (mcpjam) Title() string { return "MCPJam eval suite file (.mcpjam/evals/*.yaml)" }

// Version names what this follows. The suite file is schemaVersion "1" as defined by
// sdk/src/contract/suite-file.ts, steps.ts and predicates/types.ts in MCPJam/inspector at commit
// 6d550c02cf7461f504099cc5116f651b61ae3dd2 (2026-08-22), and described by docs/cli/reference.mdx
// ("cloud eval validate"): YAML canonical, JSON accepted. Expected tools are the tool predicates
// of assert steps and case assertions (toolCalledWith, toolCalledAtLeastOnce, firstToolWas;
// toolNeverCalled for tools that must not be called); every check must pass, so several
// expected tools mean all of them. The older evals CLI (`mcpjam evals run --tests FILE`,
// removed in MCPJam/inspector#964, 2025-11-25) kept a JSON array of {title, query, runs, model,
// provider, expectedToolCalls, advancedConfig}, all of whose tools had to be called; it is
// read (evals-cli/examples/tests.json and src/evals/evaluator.ts at dd1461eb8^) and never
// written.
func (mcpjam) Version() string {
	return `suite file schemaVersion "1" (MCPJam/inspector@6d550c02, sdk/src/contract/suite-file.ts); reads the older evals CLI tests.json`
}

// Detect claims an object with schemaVersion, mode and cases (the suite file's required
// members), or an array whose first element has query and an array of expectedToolCalls (the
// old CLI).
func (mcpjam) Detect(src []byte) bool {
	if !bytes.Contains(src, []byte("schemaVersion")) && !bytes.Contains(src, []byte("expectedToolCalls")) {
		return false
	}
	v, err := readTree(src)
	if err != nil {
		return false
	}
	if v.Kind == listing.Object {
		return v.Has("schemaVersion") && v.Has("mode") && v.Has("cases")
	}
	if v.Kind != listing.Array || len(v.Items) == 0 {
		return false
	}
	calls := v.Items[0].Get("expectedToolCalls")
	return v.Items[0].Has("query") && calls != nil && calls.Kind == listing.Array
}

func (mcpjam) Read(src []byte) ([]Case, []Loss, error) {
	v, err := readTree(src)
	if err != nil {
		return nil, nil, err
	}
	if v.Kind == listing.Array {
		return readJamLegacy(v)
	}
	if v.Kind != listing.Object || !v.Has("cases") {
		return nil, nil, fmt.Errorf("the file holds a %s without \"cases\"; an MCPJam suite file is an object with schemaVersion \"1\", suite, target, defaults and cases", v.Kind)
	}
	if sv := v.Get("schemaVersion"); sv.String() != "1" {
		return nil, nil, fmt.Errorf("schemaVersion is %s; this reads MCPJam suite files of schemaVersion \"1\"", brief(orNull(sv)))
	}
	var loss lossList
	jamFileLosses(v, &loss)
	cs := v.Get("cases")
	if cs.Kind != listing.Array {
		return nil, nil, fmt.Errorf("/cases is a %s; it must be an array of cases", cs.Kind)
	}
	if err := checkCount(len(cs.Items), "cases"); err != nil {
		return nil, nil, err
	}
	cases := make([]Case, 0, len(cs.Items))
	for i, it := range cs.Items {
		c, err := readJamCase(it, i, &loss)
		if err != nil {
			return nil, nil, err
		}
		cases = append(cases, c)
	}
	return cases, loss, nil
}

func orNull(v *listing.Value) *listing.Value {
	if v == nil {
		return listing.NewNull()
	}
	return v
}

// jamFileLosses reports the suite-level settings a task file has no place for.
func jamFileLosses(v *listing.Value, loss *lossList) {
	for _, m := range v.Fields() {
		switch m.Key {
		case "schemaVersion", "cases":
		case "mode", "reportingMode":
			if s := m.Value.String(); s != "agentWorkflow" && s != "standard" {
				loss.add(-1, "", m.Key, "%s has no place in a task file; dropped", brief(m.Value))
			}
		case "defaults", "target", "suite":
			for _, f := range m.Value.Fields() {
				if m.Key == "defaults" && f.Key == "validity" && len(f.Value.Members) == 0 {
					continue
				}
				loss.add(-1, "", m.Key+"."+f.Key, "%s has no place in a task file; dropped", brief(f.Value))
			}
		default:
			loss.add(-1, "", m.Key, "%s has no place in a task file; dropped", brief(m.Value))
		}
	}
}

func readJamCase(it *listing.Value, i int, loss *lossList) (Case, error) {
	if it.Kind != listing.Object {
		return Case{}, fmt.Errorf("/cases/%d is a %s; a case is an object with id, title and steps", i, it.Kind)
	}
	c := Case{ID: it.Get("id").String(), Title: it.Get("title").String()}
	label := c.ID
	if label == "" {
		label = c.Title
	}
	steps := it.Get("steps")
	if steps == nil || steps.Kind != listing.Array {
		return Case{}, fmt.Errorf("/cases/%d/steps is missing or not an array; a case's steps start with a prompt step", i)
	}
	prompts := 0
	for j, st := range steps.Items {
		field := fmt.Sprintf("steps[%d]", j)
		switch kind := st.Get("kind").String(); kind {
		case "prompt":
			prompts++
			if prompts == 1 {
				c.Query = st.Get("prompt").String()
			} else {
				loss.add(i, label, field, "a later turn's prompt (%s); a task holds one query: dropped", brief(orNull(st.Get("prompt"))))
			}
		case "assert":
			jamPredicate(&c, st.Get("assertion"), i, label, field+".assertion", loss)
		default:
			loss.add(i, label, field, "a %s step has no place in a task; dropped", strconv.Quote(kind))
		}
	}
	if prompts == 0 {
		return Case{}, fmt.Errorf("/cases/%d has no prompt step; a tool-selection case asks something", i)
	}
	if as := it.Get("assertions"); as != nil {
		for j, a := range as.Items {
			jamPredicate(&c, a, i, label, fmt.Sprintf("assertions[%d]", j), loss)
		}
	}
	for _, m := range it.Fields() {
		switch m.Key {
		case "id", "title", "steps", "assertions":
		case "isNegativeTest":
			if m.Value.Kind == listing.Bool && m.Value.Bool {
				c.None = true
			}
		default:
			loss.add(i, label, m.Key, "%s has no place in a task; dropped", brief(m.Value))
		}
	}
	if c.None && len(c.Expect) > 0 {
		loss.add(i, label, "isNegativeTest", "the case says no tool should be called and also expects %s; kept the expected tools", toolNames(c.Expect))
		c.None = false
	}
	// The writer fills a title in from the id or the query; that is no title of the case's own.
	cut := strings.TrimSuffix(c.Title, "…")
	if c.Title == c.ID || c.Title == c.Query || cut != c.Title && utf8.RuneCountInString(c.Title) == jamMaxTitle && strings.HasPrefix(c.Query, cut) {
		c.Title = ""
	}
	return c, nil
}

// jamPredicate reads one assertion into the case: the tool predicates become expected or
// rejected tools, the rest are losses.
func jamPredicate(c *Case, a *listing.Value, i int, label, field string, loss *lossList) {
	tool := a.Get("toolName").String()
	switch t := a.Get("type").String(); {
	case t == "toolCalledWith" && tool != "":
		call := Call{Tool: tool}
		m := a.Get("args")
		switch mode := m.Get("argumentMatching").String(); mode {
		case "ignore":
		case "exact":
			loss.add(i, label, field, "arguments of %s must match exactly; a task's arguments are a subset: kept as a subset", tool)
			fallthrough
		default:
			if args := m.Get("args"); args.IsObject() && len(args.Members) > 0 {
				call.Args = args
			}
		}
		if n := a.Get("minCount"); n != nil && n.Str != "1" {
			loss.add(i, label, field+".minCount", "%s must be called at least %s times; a task expects one call", tool, n.Str)
		}
		c.Expect = addCall(c.Expect, call)
	case t == "firstToolWas" && tool != "":
		// The first call is the one a selection test ranks: it goes first.
		c.Expect = toFront(addCall(c.Expect, Call{Tool: tool}), tool)
	case t == "toolCalledAtLeastOnce" && tool != "":
		c.Expect = addCall(c.Expect, Call{Tool: tool})
	case t == "toolNeverCalled" && tool != "":
		c.Reject = append(c.Reject, tool)
	case t == "":
		loss.add(i, label, field, "a widget assertion (%s) has no place in a task; dropped", brief(orNull(a.Get("kind"))))
	default:
		loss.add(i, label, field, "a %s check has no place in a task; dropped", t)
	}
}

// toFront moves the first call of tool to the front.
func toFront(expect []Call, tool string) []Call {
	for i, e := range expect {
		if e.Tool == tool {
			copy(expect[1:i+1], expect[:i])
			expect[0] = e
			break
		}
	}
	return expect
}

// readJamLegacy reads the old evals CLI's tests file: every expected tool had to be called.
func readJamLegacy(v *listing.Value) ([]Case, []Loss, error) {
	if err := checkCount(len(v.Items), "tests"); err != nil {
		return nil, nil, err
	}
	var loss lossList
	cases := make([]Case, 0, len(v.Items))
	for i, it := range v.Items {
		q := it.Get("query")
		if !it.IsObject() || !q.IsString() {
			return nil, nil, fmt.Errorf("/%d: an MCPJam tests file holds objects with a string \"query\" and \"expectedToolCalls\"", i)
		}
		c := Case{Title: it.Get("title").String(), Query: q.Str}
		for _, m := range it.Fields() {
			switch m.Key {
			case "title", "query":
			case "expectedToolCalls":
				names, ok := strList(m.Value)
				if !ok || m.Value.Kind != listing.Array {
					return nil, nil, fmt.Errorf("/%d/expectedToolCalls must be an array of tool names", i)
				}
				for _, n := range names {
					c.Expect = addCall(c.Expect, Call{Tool: n})
				}
				if len(names) == 0 {
					loss.add(i, c.Title, m.Key, "is empty: the test passes whatever is called, which a task cannot say")
				}
			default:
				loss.add(i, c.Title, m.Key, "%s has no place in a task; dropped", brief(m.Value))
			}
		}
		cases = append(cases, c)
	}
	return cases, loss, nil
}

// The suite file's bounds (suite-file.ts): case and suite ids are opaque ids, titles are short.
const (
	jamMaxCases = 500
	jamMaxTitle = 200
)

var jamOpaqueID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// The members a suite file requires that a task file has no value for. The placeholders say
// what to do; `mcpjam cloud eval validate` accepts them and a run fails on them loudly.
const (
	jamSuiteID     = "s_tool_workbench"
	jamSuiteName   = "Tool Workbench tasks"
	jamServer      = "set-your-server"
	jamModel       = "set-a-model"
	jamPlaceholder = "the suite file requires it and a task file has none: wrote the placeholder %q; set it before running"
)

func (mcpjam) Write(cases []Case) ([]byte, []Loss, error) {
	if len(cases) == 0 {
		return nil, nil, fmt.Errorf("an MCPJam suite file holds at least one case; there are none")
	}
	if len(cases) > jamMaxCases {
		return nil, nil, fmt.Errorf("an MCPJam suite file holds up to %d cases; there are %d: split the tasks into several files", jamMaxCases, len(cases))
	}
	var loss lossList
	loss.add(-1, "", "target.servers", jamPlaceholder, jamServer)
	loss.add(-1, "", "defaults.model", jamPlaceholder, jamModel)
	out := make([]*yaml.Node, len(cases))
	ids := map[string]bool{}
	for i, c := range cases {
		out[i] = writeJamCase(c, i, ids, &loss)
	}
	root := ymap(
		"schemaVersion", ystr("1"),
		"mode", ystr("agentWorkflow"),
		"reportingMode", ystr("standard"),
		"suite", ymap("id", ystr(jamSuiteID), "name", ystr(jamSuiteName)),
		"target", ymap("servers", yseq(ymap("name", ystr(jamServer)))),
		"defaults", ymap("model", ystr(jamModel), "repetitions", yscalar("!!int", "1"),
			"passThreshold", yscalar("!!int", "1"), "validity", &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle}))
	b, err := encodeYAML(fmt.Sprintf("MCPJam eval suite file (schemaVersion 1) written by Tool Workbench from %d tasks.", len(cases)), root, "cases", out)
	return b, loss, err
}

func writeJamCase(c Case, i int, ids map[string]bool, loss *lossList) *yaml.Node {
	label := caseLabel(c)
	id := c.ID
	if !jamOpaqueID.MatchString(id) || ids[id] {
		id = fmt.Sprintf("c_%d", i+1)
		for n := 2; ids[id]; n++ {
			id = fmt.Sprintf("c_%d_%d", i+1, n)
		}
		if c.ID != "" {
			loss.add(i, label, "id", "MCPJam case ids are unique and hold only letters, digits, - and _: wrote %s for %q", id, c.ID)
		}
	}
	ids[id] = true
	title := c.Title
	switch {
	case title == "" && c.ID != "":
		title = c.ID
	case title == "":
		title = c.Query
	}
	if utf8.RuneCountInString(title) > jamMaxTitle {
		if c.Title != "" {
			loss.add(i, label, "title", "MCPJam titles hold up to %d characters: cut short", jamMaxTitle)
		}
		title = string([]rune(title)[:jamMaxTitle-1]) + "…"
	}
	steps := yseq(ymap("id", ystr("step-1"), "kind", ystr("prompt"), "prompt", ystr(c.Query)))
	assert := func(a *yaml.Node) {
		steps.Content = append(steps.Content, ymap("id", ystr(fmt.Sprintf("step-%d", len(steps.Content)+1)), "kind", ystr("assert"), "assertion", a))
	}
	expect := c.Expect
	if c.AnyOf && len(expect) > 1 {
		loss.add(i, label, "expect", "the case accepts any of %s; MCPJam's checks must all pass: kept %s", toolNames(expect), expect[0].Tool)
		expect = expect[:1]
	}
	for _, e := range expect {
		if e.Args != nil && e.Args.Kind == listing.Object && len(e.Args.Members) > 0 {
			assert(ymap("type", ystr("toolCalledWith"), "toolName", ystr(e.Tool),
				"args", ymap("args", yvalue(e.Args), "argumentMatching", ystr("partial"))))
		} else {
			assert(ymap("type", ystr("toolCalledAtLeastOnce"), "toolName", ystr(e.Tool)))
		}
	}
	for _, r := range c.Reject {
		assert(ymap("type", ystr("toolNeverCalled"), "toolName", ystr(r)))
	}
	n := ymap("id", ystr(id), "title", ystr(title), "steps", steps)
	if c.None {
		yadd(n, "isNegativeTest", yscalar("!!bool", "true"))
	}
	if len(c.Tags) > 0 {
		loss.add(i, label, "tags", "an MCPJam case has no tags; dropped %v", c.Tags)
	}
	return n
}
