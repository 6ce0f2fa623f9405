package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRulesCarryFix checks that every rule's repair is in `workbench rules` as JSON, Markdown and
// one rule's doc.
func TestRulesCarryFix(t *testing.T) {
	out, _, code := runCLI(t, "", "rules", "--format", "json")
	var rules []struct{ ID, Fix, FixNote string }
	if err := json.Unmarshal([]byte(out), &rules); code != 0 || err != nil || len(rules) == 0 {
		t.Fatalf("rules --format json: exit %d, %v", code, err)
	}
	for _, r := range rules {
		if r.Fix != "safe" && r.Fix != "suggested" && r.Fix != "none" || r.FixNote == "" {
			t.Errorf("rule %s: fix %q, note %q", r.ID, r.Fix, r.FixNote)
		}
	}
	out, _, _ = runCLI(t, "", "rules", "--format", "markdown")
	if !strings.Contains(out, "| Fix |") || !strings.Contains(out, "| safe: trims the leading and trailing whitespace") {
		t.Errorf("the Markdown table has no fix column:\n%.300s", out)
	}
	out, _, _ = runCLI(t, "", "rules", "description")
	if !strings.Contains(out, "\n\nFix (none): a too-short description needs words only a person or a model can supply") {
		t.Errorf("the rule's doc has no fix line:\n%s", out)
	}
}
