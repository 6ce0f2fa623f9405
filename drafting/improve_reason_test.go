package drafting_test

import (
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/drafting"
)

// A reason may quote what the model wrote (a refused phrase, a lint finding on its text): the
// text report prints it with the characters a terminal would act on escaped, as it does problems.
func TestImproveReportReasonPrintable(t *testing.T) {
	r := &drafting.ImproveReport{Attempts: []drafting.Attempt{{Round: 1, Tool: "t", Description: "d",
		Reason: "refused: it adds \"best\x1b]0;owned\x07 tool\"\r\x1b[2K"}}}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"\x1b", "\x07", "\r"} {
		if strings.Contains(b.String(), c) {
			t.Errorf("the report prints the reason's %q raw:\n%q", c, b.String())
		}
	}
	if !strings.Contains(b.String(), `refused: it adds "best\x1b]0;owned\a tool"\r\x1b[2K`) {
		t.Errorf("the reason is not printed escaped:\n%s", b.String())
	}
}
