package taskformat

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MCPChecker is the name of mcpchecker's task format.
const MCPChecker = "mcpchecker"

// mcServer is the server name written into assertions, where the model has none.
const mcServer = "server"

func init() { register(mcpchecker{}) }

// mcpchecker reads and writes mcpchecker's files as one YAML stream: its Task documents (the
// prompt) and, optionally, its Eval document, whose taskSets hold the tool assertions
// (toolsUsed, requireAny, toolsNotUsed, maxToolCalls) that make a task a tool-selection test.
// mcpchecker keeps each in its own file; Write says where each document goes.
type mcpchecker struct{}

func (mcpchecker) Name() string  { return MCPChecker }
func (mcpchecker) Title() string { return "mcpchecker Task and Eval YAML" }

// Version: followed docs/reference/task-format.md, docs/how-to/use-assertions.md,
// pkg/task/config.go (TaskConfig, v1alpha1 steps) and pkg/eval/config.go (TaskSet,
// TaskAssertions, ToolAssertion) at mcpchecker/mcpchecker commit
// 2696124a393e7001bc448515da08a36cfd00006d (2026-07-20, after release v0.0.9): apiVersion
// mcpchecker/v1alpha2, and the legacy mcpchecker/v1alpha1 (or no apiVersion) on reading.
func (mcpchecker) Version() string {
	return "mcpchecker Task mcpchecker/v1alpha2 (v1alpha1 read too) and Eval taskSets assertions, mcpchecker/mcpchecker@2696124 (after v0.0.9)"
}

type mcHead struct {
	Kind       string    `yaml:"kind"`
	APIVersion string    `yaml:"apiVersion"`
	Steps      yaml.Node `yaml:"steps"`
	Config     struct {
		TaskSets yaml.Node `yaml:"taskSets"`
	} `yaml:"config"`
}

type mcTask struct {
	Kind       string               `yaml:"kind"`
	APIVersion string               `yaml:"apiVersion,omitempty"`
	Metadata   mcMeta               `yaml:"metadata"`
	Spec       *mcSpec              `yaml:"spec,omitempty"`
	Steps      *mcSpec              `yaml:"steps,omitempty"` // v1alpha1: the same prompt, script steps
	Extra      map[string]yaml.Node `yaml:",inline"`
}

type mcMeta struct {
	Name       string               `yaml:"name"`
	Difficulty string               `yaml:"difficulty,omitempty"`
	Labels     map[string]string    `yaml:"labels,omitempty"`
	Extra      map[string]yaml.Node `yaml:",inline"`
}

type mcSpec struct {
	Prompt *mcPrompt            `yaml:"prompt,omitempty"`
	Extra  map[string]yaml.Node `yaml:",inline"`
}

type mcPrompt struct {
	Inline string               `yaml:"inline,omitempty"`
	File   string               `yaml:"file,omitempty"`
	Extra  map[string]yaml.Node `yaml:",inline"`
}

type mcEval struct {
	Kind       string `yaml:"kind"`
	APIVersion string `yaml:"apiVersion,omitempty"`
	Metadata   struct {
		Name  string               `yaml:"name"`
		Extra map[string]yaml.Node `yaml:",inline"`
	} `yaml:"metadata"`
	Config struct {
		MCPConfigFile string               `yaml:"mcpConfigFile,omitempty"`
		TaskSets      []mcTaskSet          `yaml:"taskSets"`
		Extra         map[string]yaml.Node `yaml:",inline"`
	} `yaml:"config"`
	Extra map[string]yaml.Node `yaml:",inline"`
}

type mcTaskSet struct {
	Glob          string               `yaml:"glob,omitempty"`
	Path          string               `yaml:"path,omitempty"`
	Source        string               `yaml:"source,omitempty"`
	LabelSelector map[string]string    `yaml:"labelSelector,omitempty"`
	Assertions    *mcAssertions        `yaml:"assertions,omitempty"`
	Extra         map[string]yaml.Node `yaml:",inline"`
}

type mcAssertions struct {
	ToolsUsed    []mcTool             `yaml:"toolsUsed,omitempty"`
	RequireAny   []mcTool             `yaml:"requireAny,omitempty"`
	ToolsNotUsed []mcTool             `yaml:"toolsNotUsed,omitempty"`
	MinToolCalls *int                 `yaml:"minToolCalls,omitempty"`
	MaxToolCalls *int                 `yaml:"maxToolCalls,omitempty"`
	Extra        map[string]yaml.Node `yaml:",inline"`
}

type mcTool struct {
	Server      string `yaml:"server"`
	Tool        string `yaml:"tool,omitempty"`
	ToolPattern string `yaml:"toolPattern,omitempty"`
}

// Detect claims a YAML stream with an mcpchecker Task (apiVersion mcpchecker/…, or the
// legacy steps without one) or an Eval with taskSets.
func (mcpchecker) Detect(src []byte) bool {
	if !bytes.Contains(src, []byte("kind")) {
		return false
	}
	docs, err := yamlDocuments(src)
	if err != nil {
		return false
	}
	for _, d := range docs {
		var h mcHead
		if d.Decode(&h) != nil {
			continue
		}
		ours := strings.HasPrefix(h.APIVersion, "mcpchecker/")
		switch {
		case h.Kind == "Task" && (ours || h.APIVersion == "" && h.Steps.Kind != 0):
			return true
		case h.Kind == "Eval" && (ours || h.APIVersion == "") && h.Config.TaskSets.Kind != 0:
			return true
		}
	}
	return false
}

func (mcpchecker) Read(src []byte) ([]Case, []Loss, error) {
	docs, err := yamlDocuments(src)
	if err != nil {
		return nil, nil, err
	}
	r := mcReader{servers: map[string]bool{}}
	var sets []mcTaskSet
	for i, d := range docs {
		var h mcHead
		if err := d.Decode(&h); err != nil {
			return nil, nil, fmt.Errorf("YAML document %d is not an mcpchecker Task or Eval: %w", i+1, err)
		}
		if h.APIVersion != "" && h.APIVersion != "mcpchecker/v1alpha1" && h.APIVersion != "mcpchecker/v1alpha2" {
			return nil, nil, fmt.Errorf("YAML document %d has apiVersion %q; mcpchecker's are mcpchecker/v1alpha2 and mcpchecker/v1alpha1", i+1, h.APIVersion)
		}
		switch h.Kind {
		case "Task":
			if err := r.task(d, i); err != nil {
				return nil, nil, err
			}
		case "Eval":
			var e mcEval
			if err := d.Decode(&e); err != nil {
				return nil, nil, fmt.Errorf("YAML document %d (an Eval): %w", i+1, err)
			}
			sets = append(sets, e.Config.TaskSets...)
			if e.Config.MCPConfigFile != "" {
				r.lose(-1, "config.mcpConfigFile", fmt.Sprintf("the eval's MCP config runs the tests, it is not a test; dropped %q (written back as mcp-config.yaml)", e.Config.MCPConfigFile))
			}
			r.fileExtra("config.", e.Config.Extra, "the eval's agent and judge settings run the tests, they are not tests")
			r.fileExtra("", e.Extra, "")
		default:
			return nil, nil, fmt.Errorf("YAML document %d is of kind %q; an mcpchecker file holds documents of kind Task and Eval", i+1, h.Kind)
		}
	}
	if err := checkCount(len(r.cases), "tasks"); err != nil {
		return nil, nil, err
	}
	if err := r.apply(sets); err != nil {
		return nil, nil, err
	}
	return r.cases, append(r.losses, r.fileLosses()...), nil
}

// mcReader reads Task documents into cases and applies the Eval's assertions to them.
type mcReader struct {
	cases   []Case
	labels  []map[string]string
	losses  []Loss
	servers map[string]bool // server names the assertions give, other than mcServer
}

func (r *mcReader) lose(i int, field, msg string) {
	label := ""
	if i >= 0 {
		label = caseLabel(r.cases[i])
	}
	r.losses = append(r.losses, Loss{Case: i, ID: label, Field: field, Message: msg})
}

// fileExtra reports members the model has no place for, once each, sorted; where prefixes
// their names.
func (r *mcReader) fileExtra(where string, extra map[string]yaml.Node, why string) {
	for _, k := range sortedKeys(extra) {
		msg := "a task file has no place for it; dropped it"
		if why != "" {
			msg = why + "; dropped it"
		}
		r.lose(-1, where+k, msg)
	}
}

// mcStepWhy says why a task's steps are not carried.
var mcStepWhy = map[string]string{
	"verify":   "the task's own check of the agent's work is not a tool-selection expectation",
	"setup":    "setup runs before the agent; a task file has no steps",
	"cleanup":  "cleanup runs after the agent; a task file has no steps",
	"requires": "a task file needs no extensions",
	"limits":   "a task file has no time limits",
}

func (r *mcReader) task(d *yaml.Node, doc int) error {
	var t mcTask
	if err := d.Decode(&t); err != nil {
		return fmt.Errorf("YAML document %d (a Task): %w", doc+1, err)
	}
	spec, part := t.Spec, "spec"
	if t.APIVersion != "mcpchecker/v1alpha2" {
		spec, part = t.Steps, "steps"
	}
	if spec == nil || spec.Prompt == nil || spec.Prompt.Inline == "" {
		if spec != nil && spec.Prompt != nil && spec.Prompt.File != "" {
			return fmt.Errorf("task %q (YAML document %d) keeps its prompt in the file %q, which a converted file cannot read; put the prompt in %s.prompt.inline", t.Metadata.Name, doc+1, spec.Prompt.File, part)
		}
		return fmt.Errorf("task %q (YAML document %d) has no %s.prompt.inline; every task needs the prompt the agent is given", t.Metadata.Name, doc+1, part)
	}
	r.cases = append(r.cases, Case{ID: t.Metadata.Name, Query: spec.Prompt.Inline, Tags: labelTags(t.Metadata.Labels)})
	r.labels = append(r.labels, t.Metadata.Labels)
	i := len(r.cases) - 1
	if spec.Prompt.File != "" {
		r.lose(i, part+".prompt.file", fmt.Sprintf("kept the inline prompt; dropped the prompt file %q", spec.Prompt.File))
	}
	if t.Metadata.Difficulty != "" {
		r.lose(i, "metadata.difficulty", fmt.Sprintf("a task file has no difficulty; dropped %q", t.Metadata.Difficulty))
	}
	for _, k := range sortedKeys(t.Metadata.Extra) {
		r.lose(i, "metadata."+k, "a task file has no place for it; dropped it")
	}
	for _, k := range sortedKeys(spec.Extra) {
		why, ok := mcStepWhy[k]
		if !ok {
			why = "a task file has no place for it"
		}
		r.lose(i, part+"."+k, why+"; dropped it")
	}
	for _, k := range sortedKeys(t.Extra) {
		if k != "spec" && k != "steps" {
			r.lose(i, k, "a task file has no place for it; dropped it")
		}
	}
	return nil
}

// labelTags turns labels into tags: a label whose value is "true" is its name alone.
func labelTags(labels map[string]string) []string {
	var tags []string
	for _, k := range sortedKeys(labels) {
		if v := labels[k]; v == "true" || v == "" {
			tags = append(tags, k)
		} else {
			tags = append(tags, k+"="+v)
		}
	}
	return tags
}

// mcFileName is the file a task's document is saved as: its name, made safe for a path.
func mcFileName(name string) string {
	safe := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '-'
	}, name)
	return strings.TrimLeft(safe, ".") + ".yaml"
}

// yamlName spells a task file's name with .yaml, as mcFileName does, when it ends in .yml.
func yamlName(base string) string {
	if b, ok := strings.CutSuffix(base, ".yml"); ok {
		return b + ".yaml"
	}
	return base
}

// maxGlobWork bounds the (glob task set, task) pairs a file makes Read weigh.
const maxGlobWork = 1 << 20

// covers says whether a task set runs task i, as mcpchecker would find the task's file at
// tasks/<name>.yaml or tasks/<name>/<name>.yaml: by its path's or glob's last element (or the
// directory above it), and its label selector.
func (r *mcReader) covers(ts mcTaskSet, i int, file string) bool {
	for k, v := range ts.LabelSelector {
		if r.labels[i][k] != v {
			return false
		}
	}
	switch {
	case ts.Path != "":
		dir := path.Base(path.Dir(ts.Path))
		return yamlName(path.Base(ts.Path)) == file || dir+".yaml" == file
	case ts.Glob != "":
		ok, _ := path.Match(path.Base(ts.Glob), file)
		return ok
	}
	return false
}

// apply gives each task the assertions of the first task set that runs it. A path names its
// tasks through an index; each glob weighs every task, within maxGlobWork.
func (r *mcReader) apply(sets []mcTaskSet) error {
	taken := make([]int, len(r.cases))
	files := make([]string, len(r.cases))
	byFile := map[string][]int{}
	all := make([]int, len(r.cases))
	for i := range r.cases {
		taken[i], files[i], all[i] = -1, mcFileName(r.cases[i].ID), i
		byFile[files[i]] = append(byFile[files[i]], i)
	}
	work := 0
	for s, ts := range sets {
		field := fmt.Sprintf("taskSets[%d]", s)
		if ts.Source != "" {
			r.lose(-1, field+".source", fmt.Sprintf("the tasks of source %q live in another repository; dropped its assertions", ts.Source))
			continue
		}
		for _, k := range sortedKeys(ts.Extra) {
			r.lose(-1, field+"."+k, "a task file has no place for it; dropped it")
		}
		var cand []int
		switch {
		case ts.Path != "":
			cand = byFile[yamlName(path.Base(ts.Path))]
			if d := path.Base(path.Dir(ts.Path)) + ".yaml"; d != yamlName(path.Base(ts.Path)) {
				cand = append(slices.Clip(cand), byFile[d]...)
			}
			slices.Sort(cand)
		case ts.Glob != "":
			if work += len(all); work > maxGlobWork {
				return fmt.Errorf("the eval's glob task sets would weigh more than %d tasks; name the tasks' paths instead", maxGlobWork)
			}
			cand = all
		}
		n, again := 0, 0
		for _, i := range cand {
			if !r.covers(ts, i, files[i]) {
				continue
			}
			n++
			if taken[i] >= 0 {
				again++
				continue
			}
			taken[i] = s
			if ts.Assertions != nil {
				r.assert(i, field+".assertions", *ts.Assertions)
			}
		}
		if again > 0 {
			r.lose(-1, field, fmt.Sprintf("%d of its tasks run in an earlier task set too; a task has one set of expectations: kept the first", again))
		}
		if n == 0 && ts.Assertions != nil {
			r.lose(-1, field, fmt.Sprintf("its path %q or glob %q names no task of the file; dropped its assertions", ts.Path, ts.Glob))
		}
	}
	return nil
}

// assert turns a task set's assertions into task i's expectations.
func (r *mcReader) assert(i int, field string, a mcAssertions) {
	c := &r.cases[i]
	used := r.tools(i, field+".toolsUsed", a.ToolsUsed)
	anyOf := r.tools(i, field+".requireAny", a.RequireAny)
	switch {
	case len(used) > 0:
		c.Expect = used
		if len(anyOf) > 0 {
			r.lose(i, field+".requireAny", fmt.Sprintf("the task already expects toolsUsed; dropped the alternatives %s", toolNames(anyOf)))
		}
	case len(anyOf) > 0:
		c.Expect, c.AnyOf = anyOf, len(anyOf) > 1
	}
	for _, t := range r.tools(i, field+".toolsNotUsed", a.ToolsNotUsed) {
		c.Reject = append(c.Reject, t.Tool)
	}
	if a.MaxToolCalls != nil && *a.MaxToolCalls == 0 && len(c.Expect) == 0 {
		c.None = true
	} else if a.MaxToolCalls != nil {
		r.lose(i, field+".maxToolCalls", fmt.Sprintf("a task cannot bound the number of calls; dropped maxToolCalls %d", *a.MaxToolCalls))
	}
	if a.MinToolCalls != nil {
		r.lose(i, field+".minToolCalls", fmt.Sprintf("a task cannot bound the number of calls; dropped minToolCalls %d", *a.MinToolCalls))
	}
	for _, k := range sortedKeys(a.Extra) {
		r.lose(i, field+"."+k, "only the assertions on which tools are called carry over; dropped it")
	}
}

// tools reads exact tool assertions; a pattern cannot name an expected tool.
func (r *mcReader) tools(i int, field string, ts []mcTool) []Call {
	var out []Call
	for j, t := range ts {
		if t.Server != "" && t.Server != mcServer {
			r.servers[t.Server] = true
		}
		switch {
		case t.Tool != "":
			out = append(out, Call{Tool: t.Tool})
		case t.ToolPattern != "":
			r.lose(i, fmt.Sprintf("%s[%d]", field, j), fmt.Sprintf("a pattern is not a tool name; dropped toolPattern %q", t.ToolPattern))
		default:
			r.lose(i, fmt.Sprintf("%s[%d]", field, j), fmt.Sprintf("it names any tool of server %q, not a tool; dropped it", t.Server))
		}
	}
	return out
}

func (r *mcReader) fileLosses() []Loss {
	if len(r.servers) == 0 {
		return nil
	}
	return []Loss{{Case: -1, Field: "server", Message: fmt.Sprintf("a task names no MCP server; dropped the server names %s (written back as %q)", quoteList(sortedKeys(r.servers), 5), mcServer)}}
}

// Write writes a Task document per case, then an Eval document whose taskSets give each task
// its tool assertions. mcpchecker reads one document a file: the Eval's paths say where each
// Task goes (tasks/<name>.yaml, beside eval.yaml).
func (mcpchecker) Write(cases []Case) ([]byte, []Loss, error) {
	if err := checkWriteCount(len(cases), maxMCPCheckerWrite, "mcpchecker stream"); err != nil {
		return nil, nil, err
	}
	var losses lossList
	var docs []any
	var eval mcEval
	eval.Kind, eval.APIVersion, eval.Metadata.Name = "Eval", "mcpchecker/v1alpha2", "workbench-tasks"
	eval.Config.MCPConfigFile = "mcp-config.yaml"
	eval.Config.TaskSets = []mcTaskSet{}
	names := map[string]bool{}
	for i, c := range cases {
		lose := losses.of(i, c)
		name := mcName(c, i, names, lose)
		t := mcTask{Kind: "Task", APIVersion: "mcpchecker/v1alpha2", Metadata: mcMeta{Name: name, Labels: tagLabels(c.Tags, lose)},
			Spec: &mcSpec{Prompt: &mcPrompt{Inline: c.Query}}}
		docs = append(docs, t)
		eval.Config.TaskSets = append(eval.Config.TaskSets, mcTaskSet{Path: "tasks/" + mcFileName(name), Assertions: mcAssert(c, lose)})
	}
	b, err := marshalYAML(append(docs, eval)...)
	if err != nil {
		return nil, nil, fmt.Errorf("the mcpchecker tasks and eval: %w", err)
	}
	if len(cases) > 0 {
		losses = append(losses, Loss{Case: -1, Field: "server", Message: fmt.Sprintf(
			"the tasks name no MCP server; the assertions name server %q and the Eval mcp-config.yaml: name your server as your MCP config does, and add the Eval's agent", mcServer)})
	}
	return b, losses, nil
}

// mcName is a case's task name, unique in the file: its id, else its title, else case-N.
func mcName(c Case, i int, names map[string]bool, lose func(field, msg string)) string {
	name := c.ID
	switch {
	case name == "" && c.Title != "":
		name = c.Title
	case c.Title != "" && c.Title != c.ID:
		lose("title", fmt.Sprintf("an mcpchecker task has a name but no title; dropped %q", c.Title))
	}
	if name == "" || names[mcFileName(name)] {
		was := name
		name = fmt.Sprintf("case-%d", i+1)
		for k := 2; names[mcFileName(name)]; k++ {
			name = fmt.Sprintf("case-%d-%d", i+1, k)
		}
		if was != "" {
			lose("id", fmt.Sprintf("another task's file would be named as %q's; named it %q", was, name))
		}
	}
	names[mcFileName(name)] = true
	return name
}

// tagLabels turns tags into labels: "key=value" is a label, a tag alone is key: "true".
func tagLabels(tags []string, lose func(field, msg string)) map[string]string {
	if len(tags) == 0 {
		return nil
	}
	labels := map[string]string{}
	for _, t := range tags {
		k, v, ok := strings.Cut(t, "=")
		if !ok {
			v = "true"
		}
		if _, dup := labels[k]; dup || k == "" {
			lose("tags", fmt.Sprintf("the tag %q would repeat or lack a label name; dropped it", t))
			continue
		}
		labels[k] = v
	}
	return labels
}

// mcAssert writes a case's expectations as tool assertions; mcpchecker checks no arguments.
func mcAssert(c Case, lose func(field, msg string)) *mcAssertions {
	var a mcAssertions
	tools := func(calls []Call) []mcTool {
		out := make([]mcTool, len(calls))
		for j, e := range calls {
			out[j] = mcTool{Server: mcServer, Tool: e.Tool}
			if e.Args != nil {
				lose(fmt.Sprintf("expect[%d].args", j), "mcpchecker's assertions check which tools are called, not their arguments; dropped the arguments")
			}
		}
		return out
	}
	switch {
	case c.None:
		zero := 0
		a.MaxToolCalls = &zero
	case len(c.Expect) == 0:
		lose("expect", "the case names no expected tool and does not say none should be called; wrote no tool assertion")
	case c.AnyOf && len(c.Expect) > 1:
		a.RequireAny = tools(c.Expect)
	default:
		a.ToolsUsed = tools(c.Expect)
	}
	for _, t := range c.Reject {
		a.ToolsNotUsed = append(a.ToolsNotUsed, mcTool{Server: mcServer, Tool: t})
	}
	if a.MaxToolCalls == nil && a.RequireAny == nil && a.ToolsUsed == nil && a.ToolsNotUsed == nil {
		return nil
	}
	return &a
}
