package taskformat

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tool-workbench/workbench/listing"
)

// Promptfoo is the name of promptfoo's config format.
const Promptfoo = "promptfoo"

func init() { register(promptfoo{}) }

// promptfoo is promptfoo's configuration (promptfooconfig.yaml or .json): its tests, each with
// vars (one of them the query) and assertions about the tools the model called.
type promptfoo struct{}

func (promptfoo) Name() string  { return Promptfoo }
func (promptfoo) Title() string { return "promptfoo config (promptfooconfig.yaml tests)" }

// Version names what this follows: promptfoo's documentation at
// site/docs/configuration/expected-outputs/deterministic.md (promptfoo/promptfoo commit
// 012b9d3c33ad431ef80fce2bc7346dc932d66bad): tool-call-f1, trajectory:tool-used (a list means
// every tool; its not- form means none of them), trajectory:tool-args-match (partial match by
// default), trajectory:tool-sequence and trajectory:step-count; assert-set's threshold (the
// share of its assertions that must pass) from expected-outputs/index.md, "Grouping assertions
// via Assertion Sets"; the trajectory assertions' semantics checked in src/assertions/
// trajectory.ts (resolveToolMatchers, evaluateToolUsed: a list means every tool, its inverse
// passes when no listed tool matched); and site/docs/providers/mcp.md (commit
// 02530bcd4d37ca2c6ba0fde800f2b451f5ea85a1), whose tool-routing javascript check is read.
// Writing uses the trajectory assertions, which alone say arguments, rejected tools and "no
// tool" too; they read the eval's trace, so the config written says to enable tracing.
func (promptfoo) Version() string {
	return "promptfoo docs configuration/expected-outputs/deterministic.md @ 012b9d3c (tool-call-f1, trajectory:*, assert-set)"
}

// Detect claims an object with tests and one of promptfoo's own members beside it (prompts,
// providers, defaultTest), and without the version members other formats carry.
func (promptfoo) Detect(src []byte) bool {
	if !bytes.Contains(src, []byte("tests")) {
		return false
	}
	v, err := readTree(src)
	if err != nil || v.Kind != listing.Object || !v.Has("tests") {
		return false
	}
	if v.Has("schemaVersion") || v.Has("apiVersion") || v.Has("kind") {
		return false
	}
	return v.Has("prompts") || v.Has("providers") || v.Has("defaultTest")
}

// pfQueryNames are the vars a query is looked for in, when the prompts do not name one.
var pfQueryNames = []string{"query", "prompt", "question", "input", "message", "task"}

var pfTemplate = regexp.MustCompile(`^\s*\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}\s*$`)

func (promptfoo) Read(src []byte) ([]Case, []Loss, error) {
	v, err := readTree(src)
	if err != nil {
		return nil, nil, err
	}
	var loss lossList
	tests := v
	var defaults []*listing.Value
	queryVar := ""
	if v.Kind == listing.Object {
		tests = v.Get("tests")
		if tests == nil {
			return nil, nil, fmt.Errorf("the config has no \"tests\"; a promptfoo config lists its test cases under tests")
		}
		queryVar, defaults = pfFile(v, &loss)
	}
	switch tests.Kind {
	case listing.String:
		return nil, nil, fmt.Errorf("tests are loaded from %s; convert that file (a list of tests) with --from promptfoo", strconv.Quote(tests.Str))
	case listing.Array:
	default:
		return nil, nil, fmt.Errorf("tests is a %s; it must be a list of test cases with vars and assert", tests.Kind)
	}
	if err := checkCount(len(tests.Items), "tests"); err != nil {
		return nil, nil, err
	}
	cases := make([]Case, 0, len(tests.Items))
	for i, t := range tests.Items {
		c, err := pfCase(t, i, queryVar, defaults, &loss)
		if err != nil {
			return nil, nil, err
		}
		cases = append(cases, c)
	}
	return cases, loss, nil
}

// pfFile reads the config's members beside tests: the query var a single "{{var}}" prompt
// names, and defaultTest's assertions, which promptfoo runs on every test.
func pfFile(v *listing.Value, loss *lossList) (string, []*listing.Value) {
	queryVar := ""
	var defaults []*listing.Value
	for _, m := range v.Fields() {
		switch m.Key {
		case "tests":
		case "prompts":
			if ps, ok := strList(m.Value); ok && len(ps) == 1 && pfTemplate.MatchString(ps[0]) {
				queryVar = pfTemplate.FindStringSubmatch(ps[0])[1]
				continue
			}
			loss.add(-1, "", "prompts", "a task is its query alone; dropped the prompt templates %s", brief(m.Value))
		case "defaultTest":
			for _, d := range m.Value.Fields() {
				if d.Key == "assert" && d.Value.Kind == listing.Array {
					defaults = d.Value.Items
					continue
				}
				loss.add(-1, "", "defaultTest."+d.Key, "%s has no place in a task file; dropped", brief(d.Value))
			}
		default:
			loss.add(-1, "", m.Key, "%s has no place in a task file; dropped", brief(m.Value))
		}
	}
	return queryVar, defaults
}

func pfCase(t *listing.Value, i int, queryVar string, defaults []*listing.Value, loss *lossList) (Case, error) {
	if t.Kind != listing.Object {
		return Case{}, fmt.Errorf("tests[%d] is a %s; a test is an object with vars and assert", i, t.Kind)
	}
	var c Case
	md := t.Get("metadata")
	c.ID = md.Get("id").String()
	c.Title = t.Get("description").String()
	if c.Title == c.ID {
		c.Title = ""
	}
	label := caseLabel(c)
	vars := t.Get("vars")
	name := queryVar
	if name == "" {
		name = pfGuessQuery(vars)
	}
	q := vars.Get(name)
	if !q.IsString() {
		return Case{}, fmt.Errorf("tests[%d] has no string var holding the query (looked for %s); name it query and use the prompt '{{query}}'", i, pfLooked(queryVar))
	}
	c.Query = q.Str
	for _, m := range vars.Fields() {
		if m.Key != name {
			loss.add(i, label, "vars."+m.Key, "a task holds only the query; dropped %s", brief(m.Value))
		}
	}
	for _, m := range md.Fields() {
		switch tags, ok := strList(m.Value); {
		case m.Key == "id" && m.Value.IsString():
		case m.Key == "tags" && ok:
			c.Tags = tags
		default:
			loss.add(i, label, "metadata."+m.Key, "%s has no place in a task; dropped", brief(m.Value))
		}
	}
	var r pfReader
	for j, a := range defaults {
		r.assert(&c, a, i, label, fmt.Sprintf("defaultTest.assert[%d]", j), loss)
	}
	for _, m := range t.Fields() {
		switch m.Key {
		case "vars", "description", "metadata":
		case "assert":
			for j, a := range m.Value.Items {
				r.assert(&c, a, i, label, fmt.Sprintf("assert[%d]", j), loss)
			}
		default:
			loss.add(i, label, m.Key, "%s has no place in a task; dropped", brief(m.Value))
		}
	}
	r.finish(&c, i, label, loss)
	return c, nil
}

func pfGuessQuery(vars *listing.Value) string {
	for _, n := range pfQueryNames {
		if vars.Get(n).IsString() {
			return n
		}
	}
	var only string
	for _, m := range vars.Fields() {
		if m.Value.IsString() {
			if only != "" {
				return ""
			}
			only = m.Key
		}
	}
	return only
}

func pfLooked(queryVar string) string {
	if queryVar != "" {
		return "the var " + strconv.Quote(queryVar) + " the prompt names"
	}
	return "vars " + strings.Join(pfQueryNames, ", ") + ", or a single string var"
}

// pfReader gathers one test's tool assertions: the expected calls of all-of assertions, the
// alternatives of an any-of assert-set, and whether one says no tool may be called.
type pfReader struct {
	anyOf      []Call
	anyOfField string
	none       bool
}

// assert reads one assertion into the case; what is not about tool choice is a loss.
func (r *pfReader) assert(c *Case, a *listing.Value, i int, label, field string, loss *lossList) {
	typ := a.Get("type").String()
	val := a.Get("value")
	drop := func(why string) { loss.add(i, label, field, "%s %s; dropped", pfName(typ), why) }
	for _, m := range a.Fields() {
		if m.Key != "type" && m.Key != "value" && m.Key != "threshold" && m.Key != "assert" {
			loss.add(i, label, field+"."+m.Key, "%s has no place in a task; dropped", brief(m.Value))
		}
	}
	switch typ {
	case "tool-call-f1":
		names, ok := pfNames(val)
		if !ok {
			drop("has no list of tool names")
			return
		}
		if th := a.Get("threshold"); th != nil && th.Str != "1" && th.Str != "1.0" {
			loss.add(i, label, field+".threshold", "an F1 threshold of %s gives partial credit; a task expects every tool: kept them all", th.Str)
		}
		for _, n := range names {
			c.Expect = addCall(c.Expect, Call{Tool: n})
		}
	case "trajectory:tool-used", "trajectory:tool-sequence":
		calls, why := pfToolCalls(typ, val)
		if why != "" {
			drop(why)
			return
		}
		for _, call := range calls {
			c.Expect = addCall(c.Expect, call)
		}
	case "trajectory:tool-args-match":
		call, why := pfArgsMatch(val, i, label, field, loss)
		if why != "" {
			drop(why)
			return
		}
		c.Expect = addCall(c.Expect, call)
	case "not-trajectory:tool-used":
		names, ok := strList(val)
		if !ok || pfGlob(names) {
			drop("names no plain list of tools")
			return
		}
		c.Reject = append(c.Reject, names...)
	case "trajectory:step-count":
		if val.Get("type").String() != "tool" || val.Get("max").String() != "" || orNull(val.Get("max")).Str != "0" || val.Has("min") || val.Has("pattern") || val.Has("name") {
			drop("counts steps other than \"no tool call\" (type tool, max 0)")
			return
		}
		r.none = true
	case "assert-set":
		r.set(c, a, i, label, field, loss)
	case "javascript":
		tool, negated, checksErrors := pfRoutingScript(val.String())
		switch {
		case tool == "":
			drop("is a script the workbench does not read (it reads the tool-routing check promptfoo's MCP page shows)")
			return
		case negated:
			c.Reject = append(c.Reject, tool)
		default:
			c.Expect = addCall(c.Expect, Call{Tool: tool})
		}
		if checksErrors {
			loss.add(i, label, field, "the script also requires the call to %s to succeed; a task checks the choice only", tool)
		}
	default:
		drop("is no assertion about which tool is called")
	}
}

func pfName(typ string) string {
	if typ == "" {
		return "an assertion without a type"
	}
	return "an assertion of type " + typ
}

// pfNames reads tool-call-f1's value: a list of names or one comma-separated string.
func pfNames(v *listing.Value) ([]string, bool) {
	if v.IsString() {
		var out []string
		for _, s := range strings.Split(v.Str, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out, len(out) > 0
	}
	names, ok := strList(v)
	return names, ok && len(names) > 0
}

func pfGlob(names []string) bool {
	for _, n := range names {
		if strings.ContainsAny(n, "*?") {
			return true
		}
	}
	return false
}

// pfToolCalls reads trajectory:tool-used (a name, a list of names, or {name, min}) and
// trajectory:tool-sequence (a list, or {steps, mode}); why says what cannot be carried.
func pfToolCalls(typ string, v *listing.Value) ([]Call, string) {
	if v.IsObject() && typ == "trajectory:tool-sequence" {
		if m := v.Get("mode").String(); m == "exact" {
			return nil, "asks for exactly this sequence and no other call, which a task cannot say"
		}
		v = v.Get("steps")
	} else if v.IsObject() {
		n := v.Get("name")
		if !n.IsString() || v.Has("pattern") || v.Has("max") || v.Has("min") && v.Get("min").Str != "1" {
			return nil, "counts or matches tools by pattern, which a task cannot say"
		}
		v = n
	}
	names, ok := strList(v)
	if !ok || len(names) == 0 {
		return nil, "names no tools"
	}
	if pfGlob(names) {
		return nil, "matches tools by pattern, which a task cannot say"
	}
	calls := make([]Call, len(names))
	for k, n := range names {
		calls[k] = Call{Tool: n}
	}
	return calls, ""
}

// pfArgsMatch reads trajectory:tool-args-match: {name, args|arguments, mode, defaults, ignore}.
func pfArgsMatch(v *listing.Value, i int, label, field string, loss *lossList) (Call, string) {
	n := v.Get("name")
	if !n.IsString() || v.Has("pattern") {
		return Call{}, "matches tools by pattern, which a task cannot say"
	}
	args := v.Get("args")
	if args == nil {
		args = v.Get("arguments")
	}
	if !args.IsObject() {
		return Call{}, "has no object of arguments"
	}
	if v.Get("mode").String() == "exact" {
		loss.add(i, label, field+".mode", "arguments of %s must match exactly; a task's arguments are a subset: kept as a subset", n.Str)
	}
	for _, k := range []string{"defaults", "ignore"} {
		if d := v.Get(k); d != nil {
			loss.add(i, label, field+"."+k, "%s has no place in a task; dropped", brief(d))
		}
	}
	c := Call{Tool: n.Str}
	if len(args.Members) > 0 {
		c.Args = args
	}
	return c, ""
}

// set reads an assert-set: without a threshold every member must pass (all of them); with a
// threshold that one passing member reaches, any one of them will do.
func (r *pfReader) set(c *Case, a *listing.Value, i int, label, field string, loss *lossList) {
	members := a.Get("assert")
	if members == nil || members.Kind != listing.Array || len(members.Items) == 0 {
		loss.add(i, label, field, "an assert-set without assertions; dropped")
		return
	}
	th := a.Get("threshold")
	if th == nil {
		for j, m := range members.Items {
			r.assert(c, m, i, label, fmt.Sprintf("%s.assert[%d]", field, j), loss)
		}
		return
	}
	t, err := strconv.ParseFloat(th.Str, 64)
	n := float64(len(members.Items))
	if err != nil || t <= 0 || t*n > 1+1e-9 {
		loss.add(i, label, field, "an assert-set passing at a threshold of %s of %d assertions has no place in a task; dropped", th.Str, len(members.Items))
		return
	}
	var alt Case
	for j, m := range members.Items {
		var sub lossList
		var inner pfReader
		inner.assert(&alt, m, i, label, fmt.Sprintf("%s.assert[%d]", field, j), &sub)
		if len(sub) > 0 || len(alt.Reject) > 0 || inner.none || len(inner.anyOf) > 0 || len(alt.Expect) != j+1 {
			loss.add(i, label, field, "an any-of assert-set whose members are not each one expected tool has no place in a task; dropped")
			return
		}
	}
	if r.anyOf != nil {
		loss.add(i, label, field, "a second any-of assert-set; a task holds one: dropped")
		return
	}
	r.anyOf, r.anyOfField = alt.Expect, field
}

// finish settles the case's expectation once every assertion is read.
func (r *pfReader) finish(c *Case, i int, label string, loss *lossList) {
	if r.anyOf != nil {
		if len(c.Expect) > 0 {
			loss.add(i, label, r.anyOfField, "the test also expects %s; a case accepts either all of its tools or any one: dropped the alternatives %s", toolNames(c.Expect), toolNames(r.anyOf))
		} else {
			c.Expect, c.AnyOf = r.anyOf, len(r.anyOf) > 1
		}
	}
	if r.none {
		if len(c.Expect) > 0 {
			loss.add(i, label, "assert", "the test says no tool may be called and also expects %s; kept the expected tools", toolNames(c.Expect))
			return
		}
		c.None = true
	}
}

func (promptfoo) Write(cases []Case) ([]byte, []Loss, error) {
	if err := checkWriteCount(len(cases), maxYAMLWrite, "promptfoo config"); err != nil {
		return nil, nil, err
	}
	tests := make([]*yaml.Node, len(cases))
	for i, c := range cases {
		tests[i] = pfWriteCase(c)
	}
	comment := fmt.Sprintf("promptfoo tests written by Tool Workbench from %d tasks. The trajectory:* assertions read\n"+
		"the eval's trace: add your providers (connected to your MCP server) and enable tracing.", len(cases))
	b, err := encodeYAML(comment, ymap("prompts", yseq(ystr("{{query}}"))), "tests", tests)
	return b, nil, err
}

func pfWriteCase(c Case) *yaml.Node {
	t := ymap()
	switch {
	case c.Title != "":
		yadd(t, "description", ystr(c.Title))
	case c.ID != "":
		yadd(t, "description", ystr(c.ID))
	}
	yadd(t, "vars", ymap("query", ystr(c.Query)))
	if c.ID != "" || len(c.Tags) > 0 {
		md := ymap()
		if c.ID != "" {
			yadd(md, "id", ystr(c.ID))
		}
		if len(c.Tags) > 0 {
			yadd(md, "tags", ystrs(c.Tags))
		}
		yadd(t, "metadata", md)
	}
	as := yseq()
	switch {
	case c.None:
		as.Content = append(as.Content, ymap("type", ystr("trajectory:step-count"), "value", ymap("type", ystr("tool"), "max", yscalar("!!int", "0"))))
	case c.AnyOf && len(c.Expect) > 1:
		set := yseq()
		for _, e := range c.Expect {
			set.Content = append(set.Content, pfCallAsserts([]Call{e})...)
		}
		// One passing member of n scores 1/n: the threshold is that, rounded down.
		th := math.Floor(1000/float64(len(c.Expect))) / 1000
		as.Content = append(as.Content, ymap("type", ystr("assert-set"), "threshold", yscalar("!!float", strconv.FormatFloat(max(th, 0.001), 'f', -1, 64)), "assert", set))
	default:
		as.Content = append(as.Content, pfCallAsserts(c.Expect)...)
	}
	if len(c.Reject) > 0 {
		as.Content = append(as.Content, ymap("type", ystr("not-trajectory:tool-used"), "value", ystrs(c.Reject)))
	}
	if len(as.Content) > 0 {
		yadd(t, "assert", as)
	}
	return t
}

// pfCallAsserts says that every call is made, in the calls' order (a reader takes the first
// as the one a selection test ranks): one trajectory:tool-used when no call has arguments, else
// one assertion per call, trajectory:tool-args-match for a call with arguments.
func pfCallAsserts(calls []Call) []*yaml.Node {
	var out []*yaml.Node
	var plain []string
	for _, e := range calls {
		if e.Args != nil && e.Args.Kind == listing.Object && len(e.Args.Members) > 0 {
			out = append(out, ymap("type", ystr("trajectory:tool-args-match"), "value", ymap("name", ystr(e.Tool), "args", yvalue(e.Args))))
			continue
		}
		plain = append(plain, e.Tool)
		out = append(out, ymap("type", ystr("trajectory:tool-used"), "value", ystr(e.Tool)))
	}
	if len(plain) > 1 && len(plain) == len(calls) {
		return []*yaml.Node{ymap("type", ystr("trajectory:tool-used"), "value", ystrs(plain))}
	}
	return out
}

// pfRoutingScript is the tool-routing check of promptfoo's MCP provider page
// (site/docs/providers/mcp.md, "Asserting on Executed Tool Calls"): a javascript assertion
// that some call in context.metadata.toolCalls has a tool's name, optionally without error.
// Only that shape is read, with any variable names and either quote; a negated one ("!calls.some")
// says the tool must not be called. Any other script is not guessed at.
var pfRouting = regexp.MustCompile(`^\s*const\s+(\w+)\s*=\s*context\.metadata\?\.toolCalls\s*\?\?\s*\[\]\s*;?\s*` +
	`return\s+(!?)\s*(\w+)\.some\(\s*\(?\s*(\w+)\s*\)?\s*=>\s*(\w+)\.name\s*===?\s*(?:'([^'\\]+)'|"([^"\\]+)")` +
	`(\s*&&\s*!\s*(\w+)\.is_error)?\s*\)\s*;?\s*$`)

func pfRoutingScript(src string) (tool string, negated, checksErrors bool) {
	m := pfRouting.FindStringSubmatch(src)
	if m == nil || m[3] != m[1] || m[5] != m[4] || m[8] != "" && m[9] != m[4] {
		return "", false, false
	}
	return m[6] + m[7], m[2] == "!", m[8] != ""
}
