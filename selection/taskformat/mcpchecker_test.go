package taskformat

import (
	"fmt"
	"strings"
	"testing"
)

// TestMCPCheckerWriteLosses: what a case says that mcpchecker cannot is reported, field by
// field; "server" is the file's note that the assertions name a placeholder server.
func TestMCPCheckerWriteLosses(t *testing.T) {
	args := mustValue(t, `{"book_id": "b-1"}`)
	tests := []struct {
		name string
		c    Case
		want []string
	}{
		{"carried whole", Case{ID: "a", Query: "q", Expect: []Call{{Tool: "x"}}, Reject: []string{"y"}, Tags: []string{"k=v", "smoke"}}, []string{"server"}},
		{"any of", Case{ID: "a", Query: "q", AnyOf: true, Expect: []Call{{Tool: "x"}, {Tool: "y"}}}, []string{"server"}},
		{"none", Case{ID: "a", Query: "q", None: true}, []string{"server"}},
		{"arguments", Case{ID: "a", Query: "q", Expect: []Call{{Tool: "x", Args: args}}}, []string{"expect[0].args", "server"}},
		{"title beside id", Case{ID: "a", Title: "A", Query: "q", None: true}, []string{"title", "server"}},
		{"nothing expected", Case{ID: "a", Query: "q"}, []string{"expect", "server"}},
		{"tag without a label name", Case{ID: "a", Query: "q", None: true, Tags: []string{"=v"}}, []string{"tags", "server"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkWriteLosses(t, mcpchecker{}, tt.c, tt.want)
		})
	}
}

// TestMCPCheckerReadLosses: each part of a task or an eval the model has no place for is
// reported, and the tool assertions become the case's expectations.
func TestMCPCheckerReadLosses(t *testing.T) {
	task := "kind: Task\napiVersion: mcpchecker/v1alpha2\nmetadata:\n  name: t\nspec:\n  prompt:\n    inline: renew it\n"
	eval := func(assertions string) string {
		return task + "---\nkind: Eval\nconfig:\n  taskSets:\n    - path: t.yaml\n      assertions:\n" + assertions
	}
	tests := []struct {
		name, src string
		want      []string
		expect    string // the case, as parts shows it
	}{
		{"plain task", task, nil, "expect=[] reject=[] none=false"},
		{"tools used", eval("        toolsUsed: [{server: s, tool: x}, {server: s, tool: y}]\n"), []string{"server"}, "expect=[x y] reject=[] none=false"},
		{"require any", eval("        requireAny: [{server: server, tool: x}, {server: server, tool: y}]\n"), nil, "expect=[x y] reject=[] anyOf none=false"},
		{"both", eval("        toolsUsed: [{server: server, tool: x}]\n        requireAny: [{server: server, tool: y}]\n"),
			[]string{"taskSets[0].assertions.requireAny"}, "expect=[x] reject=[] none=false"},
		{"pattern", eval("        toolsUsed: [{server: server, toolPattern: 'pods_.*'}]\n"), []string{"taskSets[0].assertions.toolsUsed[0]"}, "expect=[] reject=[] none=false"},
		{"no calls", eval("        maxToolCalls: 0\n"), nil, "expect=[] reject=[] none=true"},
		{"a .yml path", strings.Replace(eval("        maxToolCalls: 0\n"), "path: t.yaml", "path: tasks/t.yml", 1), nil, "expect=[] reject=[] none=true"},
		{"a task's directory", strings.Replace(eval("        maxToolCalls: 0\n"), "path: t.yaml", "path: tasks/t/task.yaml", 1), nil, "expect=[] reject=[] none=true"},
		{"call bounds", eval("        minToolCalls: 1\n        maxToolCalls: 4\n"),
			[]string{"taskSets[0].assertions.maxToolCalls", "taskSets[0].assertions.minToolCalls"}, "expect=[] reject=[] none=false"},
		{"other assertions", eval("        callOrder: []\n        noDuplicateCalls: true\n"),
			[]string{"taskSets[0].assertions.callOrder", "taskSets[0].assertions.noDuplicateCalls"}, "expect=[] reject=[] none=false"},
		{"unmatched set", task + "---\nkind: Eval\nconfig:\n  taskSets:\n    - path: other.yaml\n      assertions: {maxToolCalls: 0}\n",
			[]string{"taskSets[0]"}, "expect=[] reject=[] none=false"},
		{"label selector", task + "---\nkind: Eval\nconfig:\n  taskSets:\n    - glob: '*.yaml'\n      labelSelector: {area: x}\n      assertions: {maxToolCalls: 0}\n",
			[]string{"taskSets[0]"}, "expect=[] reject=[] none=false"},
		{"task steps", strings.Replace(task, "spec:\n", "spec:\n  setup: [{script: {file: s.sh}}]\n  limits: {timeout: 5m}\n", 1),
			[]string{"spec.limits", "spec.setup"}, "expect=[] reject=[] none=false"},
		{"metadata", strings.Replace(task, "  name: t\n", "  name: t\n  difficulty: hard\n  runs: 3\n", 1),
			[]string{"metadata.difficulty", "metadata.runs"}, "expect=[] reject=[] none=false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkRead(t, mcpchecker{}, tt.src, "", tt.want, tt.expect)
		})
	}
}

// TestMCPCheckerReadErrors: a file that is not mcpchecker's says what is wrong.
func TestMCPCheckerReadErrors(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"prompt in a file", "kind: Task\napiVersion: mcpchecker/v1alpha2\nmetadata: {name: t}\nspec:\n  prompt: {file: p.md}\n", "prompt.inline"},
		{"no prompt", "kind: Task\napiVersion: mcpchecker/v1alpha2\nmetadata: {name: t}\nspec: {}\n", "no spec.prompt.inline"},
		{"legacy without steps", "kind: Task\nmetadata: {name: t}\n", "no steps.prompt.inline"},
		{"other kind", "kind: Pod\n", `of kind "Pod"`},
		{"other version", "kind: Task\napiVersion: mcpchecker/v9\n", "mcpchecker/v1alpha2"},
		{"not a mapping", "- a\n- b\n", "not an mcpchecker Task or Eval"},
		{"bad assertion", "kind: Eval\nconfig:\n  taskSets:\n    - path: x\n      assertions: {toolsUsed: 3}\n", "Eval"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := mcpchecker{}.Read([]byte(tt.src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to say %q", err, tt.want)
			}
		})
	}
}

// TestMCPCheckerManyTaskSets: a file of many tasks and task sets reads in linear work when the
// sets name paths, and is refused when its globs would weigh every task many times over.
func TestMCPCheckerManyTaskSets(t *testing.T) {
	const n = 20000
	var tasks, paths, globs strings.Builder
	for i := range n {
		fmt.Fprintf(&tasks, "kind: Task\nmetadata: {name: t%d}\nsteps: {prompt: {inline: q}}\n---\n", i)
		fmt.Fprintf(&paths, "    - {path: tasks/t%d.yaml, assertions: {maxToolCalls: 0}}\n", i)
		if i < 100 {
			globs.WriteString("    - {glob: '*.yaml', assertions: {maxToolCalls: 0}}\n")
		}
	}
	cases, losses, err := mcpchecker{}.Read([]byte(tasks.String() + "kind: Eval\nconfig:\n  taskSets:\n" + paths.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != n || !cases[n-1].None || len(losses) != 0 {
		t.Fatalf("%d cases, the last %+v, %d losses", len(cases), cases[n-1], len(losses))
	}
	_, _, err = mcpchecker{}.Read([]byte(tasks.String() + "kind: Eval\nconfig:\n  taskSets:\n" + globs.String()))
	if err == nil || !strings.Contains(err.Error(), "name the tasks' paths instead") {
		t.Fatalf("err = %v, want the glob sets refused", err)
	}
}
