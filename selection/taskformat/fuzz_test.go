package taskformat

import (
	"testing"

	"github.com/tool-workbench/workbench/selection"
)

// fuzzFormat checks what any input may do to a format: fail, or read cases that the format
// writes and reads back. Its seeds are the format's examples and the given files.
func fuzzFormat(f *testing.F, format Format, seeds ...string) {
	for _, ex := range examples {
		if ex.format == format.Name() {
			f.Add(readTestdata(f, ex.file))
		}
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, n := range Names() {
			registry[n].Detect(src)
		}
		cases, _, err := format.Read(src)
		if err != nil {
			return
		}
		out, _, err := format.Write(cases)
		if err != nil {
			if format.Name() == MCPJam {
				return // a suite file refuses no cases or too many; that is said in words
			}
			t.Fatalf("writing what was read: %v", err)
		}
		if _, _, err := format.Read(out); err != nil {
			t.Fatalf("%s does not read its own output: %v\n%s", format.Name(), err, out)
		}
		// What the cases become in the workbench's own format imports: sets without repeats,
		// rejects apart from the answers.
		wb, _, err := registry[Workbench].Write(cases)
		if err != nil {
			t.Fatalf("writing the cases as workbench tasks: %v", err)
		}
		if _, err := selection.ParseTasks(wb, false); err != nil {
			t.Fatalf("the workbench tasks made of %s cases do not import: %v\n%s", format.Name(), err, wb)
		}
	})
}

func FuzzMCPJam(f *testing.F) { fuzzFormat(f, mcpjam{}) }

func FuzzPromptfoo(f *testing.F) {
	fuzzFormat(f, promptfoo{}, aliasBomb(3),
		"tests: [{vars: {query: q}, assert: [{type: assert-set, threshold: 0.5, assert: [{type: trajectory:tool-used, value: a}]}]}]\nprompts: [x]")
}

func FuzzMCPChecker(f *testing.F) {
	fuzzFormat(f, mcpchecker{}, "kind: Task\nmetadata: {name: t}\nsteps: {prompt: {inline: hi}}\n---\nkind: Eval\nconfig: {taskSets: [{glob: '*', assertions: {toolsNotUsed: [{server: s, tool: x}]}}]}\n")
}

func FuzzMCPTest(f *testing.F) {
	fuzzFormat(f, mcptest{}, `{"catalog": [], "intents": [{"query": "q", "gold": ["a", "b"]}]}`)
}

func FuzzMCPTef(f *testing.F) {
	fuzzFormat(f, mcptef{}, `{"items": [{"id": 7, "query": "q", "expected_tool_calls": null}]}`)
}
