package taskformat

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// MaxCases bounds the cases a file of any format may hold: the task file's bound.
const MaxCases = selection.MaxTasks

// checkCount refuses a file of more than MaxCases cases, calling them what the format does.
func checkCount(n int, what string) error {
	if n > MaxCases {
		return fmt.Errorf("the file holds %d %s; task files are read up to %d", n, what, MaxCases)
	}
	return nil
}

// Bounds on the cases a YAML format writes in one file. The YAML encoder holds the whole file's
// node tree while it writes: about 9 KB a case for promptfoo and mcptest (100,000 tasks took
// 845 and 973 MB), and some 40 KB for mcpchecker's Task document per case. A page's export or an
// API call can ask for any of them, so each is refused past its bound rather than written.
const (
	maxYAMLWrite       = 20000
	maxMCPCheckerWrite = 5000
)

// checkWriteCount refuses writing n cases past max, saying how to get the file anyway.
func checkWriteCount(n, max int, title string) error {
	if n > max {
		return fmt.Errorf("the workbench writes up to %d cases a %s; there are %d: split the tasks into several files", max, title, n)
	}
	return nil
}

// lossList collects the losses of one Read or Write.
type lossList []Loss

func (l *lossList) add(i int, id, field, format string, args ...any) {
	*l = append(*l, Loss{Case: i, ID: id, Field: field, Message: fmt.Sprintf(format, args...)})
}

// of records the losses of case i, c.
func (l *lossList) of(i int, c Case) func(field, msg string) {
	return func(field, msg string) {
		*l = append(*l, Loss{Case: i, ID: caseLabel(c), Field: field, Message: msg})
	}
}

// brief shows a value in a loss message, cut short.
func brief(v *listing.Value) string {
	s := string(listing.Marshal(v, ""))
	if v.Kind == listing.String {
		s = strconv.Quote(v.Str)
	}
	if r := []rune(s); len(r) > 60 {
		s = string(r[:57]) + "..."
	}
	return s
}

// strList reads a string or an array of strings; ok is false for anything else.
func strList(v *listing.Value) ([]string, bool) {
	if v == nil {
		return nil, false
	}
	if v.Kind == listing.String {
		return []string{v.Str}, true
	}
	if v.Kind != listing.Array {
		return nil, false
	}
	out := make([]string, 0, len(v.Items))
	for _, it := range v.Items {
		if it.Kind != listing.String {
			return nil, false
		}
		out = append(out, it.Str)
	}
	return out, true
}

// addCall adds a call to expect, merging it into an earlier call of the same tool (a check
// that the tool was called and one of its arguments are one expectation).
func addCall(expect []Call, c Call) []Call {
	for i := range expect {
		if expect[i].Tool != c.Tool {
			continue
		}
		switch {
		case c.Args == nil:
			return expect
		case expect[i].Args == nil:
			expect[i].Args = c.Args
			return expect
		case listing.Equal(expect[i].Args, c.Args):
			return expect
		}
	}
	return append(expect, c)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// quoteList quotes up to n strings, saying how many more there are.
func quoteList(s []string, n int) string {
	var b strings.Builder
	for i, x := range s {
		if i == n {
			fmt.Fprintf(&b, " and %d more", len(s)-n)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", x)
	}
	return b.String()
}

// toolNamesList is the calls' tool names.
func toolNamesList(calls []Call) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.Tool
	}
	return out
}

// toolNames lists the calls' tool names for a message.
func toolNames(calls []Call) string { return strings.Join(toolNamesList(calls), ", ") }
