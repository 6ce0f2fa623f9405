package taskformat

import (
	"os"
	"path/filepath"
	"testing"
)

// fuzzRead checks what any input may do to a format: fail, or read cases that the format
// writes and reads back.
func fuzzRead(f *testing.F, format Format, seeds ...string) {
	for _, s := range seeds {
		b, err := os.ReadFile(filepath.Join("testdata", s))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(aliasBomb(3)))
	f.Add([]byte("tests: [{vars: {query: q}, assert: [{type: assert-set, threshold: 0.5, assert: [{type: trajectory:tool-used, value: a}]}]}]\nprompts: [x]"))
	f.Fuzz(func(t *testing.T, src []byte) {
		format.Detect(src)
		cases, _, err := format.Read(src)
		if err != nil {
			return
		}
		out, _, err := format.Write(cases)
		if err != nil {
			return // a suite file refuses no cases or too many; that is said in words
		}
		if _, _, err := format.Read(out); err != nil {
			t.Fatalf("%s does not read its own output: %v\n%s", format.Name(), err, out)
		}
	})
}

func FuzzMCPJam(f *testing.F) {
	fuzzRead(f, mcpjam{}, "mcpjam/suite.yaml", "mcpjam/legacy-tests.json")
}

func FuzzPromptfoo(f *testing.F) {
	fuzzRead(f, promptfoo{}, "promptfoo/promptfooconfig.yaml")
}
