package views

import (
	"context"
	"strings"
	"testing"
)

// A task with several right tools shows them in its verdict cell, with its rejected tools, as
// escaped text; the rejected status has its badge and its explanation.
func TestVerdictCellAnswers(t *testing.T) {
	v := Verdict{Status: "rejected", Winner: "tickets_delete", Answers: []string{"tickets_get", "<b>x</b>"}, Reject: []string{"tickets_delete"}}
	var b strings.Builder
	if err := VerdictCell(0, v).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{
		`class="badge st-rejected"`,
		`title="rejected: a tool the task rejects scores highest`,
		`data-testid="verdict-answers">any of`,
		`<code>tickets_get</code>, <code>&lt;b&gt;x&lt;/b&gt;</code></div>`,
		`data-testid="verdict-reject">never`,
		`<code>tickets_delete</code></div>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("verdict cell lacks %q:\n%s", want, html)
		}
	}
	b.Reset()
	if err := VerdictLegend().Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `data-status="rejected"`) {
		t.Error("the legend does not explain the rejected status")
	}
	// A one-answer task shows neither line.
	b.Reset()
	if err := VerdictCell(0, Verdict{Status: "clear"}).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "verdict-answers") || strings.Contains(b.String(), "verdict-reject") {
		t.Errorf("a one-answer task shows answer lines:\n%s", b.String())
	}
}
