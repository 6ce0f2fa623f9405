package analysis

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"

	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

func fixEngine(t testing.TB) *Engine {
	t.Helper()
	e, err := New(Options{Extended: lint.New(lint.Config{}), PlainVerdicts: true, NoCost: true})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func mustParse(t testing.TB, src []byte) *listing.Listing {
	t.Helper()
	l, err := listing.Parse(src, listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestFixSafe(t *testing.T) {
	cases := []struct {
		name, src, want string
		opt             FixOptions
		applied         int
	}{
		{name: "safe repairs", src: `{"tools":[{"name":"tickets_get","description":" Look up one ticket by its numeric id and return its status and owner.\u200b\n","inputSchema":{"type":"object","properties":{"id":{"type":"integer","description":"Ticket id."}},"required":["id"]},"annotations":{"readOnlyHint":true}}]}`,
			want:    `{"tools":[{"name":"tickets_get","description":"Look up one ticket by its numeric id and return its status and owner.","inputSchema":{"type":"object","properties":{"id":{"type":"integer","description":"Ticket id."}},"required":["id"]},"annotations":{"readOnlyHint":true}}]}`,
			applied: 2},
		{name: "only the rules asked for", src: `{"tools":[{"name":"tickets_get","description":" Look up one ticket by its numeric id and return its status and owner.\u200b\n","inputSchema":{"type":"object","properties":{"id":{"type":"integer","description":"Ticket id."}},"required":["id"]},"annotations":{"readOnlyHint":true}}]}`,
			want: `{"tools":[{"name":"tickets_get","description":"Look up one ticket by its numeric id and return its status and owner.\u200b","inputSchema":{"type":"object","properties":{"id":{"type":"integer","description":"Ticket id."}},"required":["id"]},"annotations":{"readOnlyHint":true}}]}`,
			opt:  FixOptions{Rules: []string{"description-whitespace"}}, applied: 1},
		{name: "unknown fields, key order and number spelling stay",
			src:     `{"_meta":{"z":1.0E+2},"tools":[{"x-extra":[1e2,-0.0],"name":"tickets_get","description":"Look up one ticket by its numeric id and return its status and owner. ","inputSchema":{"type":"object","properties":{"id":{"type":"integer","maximum":1.50e3,"description":"Ticket id."}},"required":["id"]},"annotations":{"readOnlyHint":true}}],"nextCursor":null}`,
			want:    `{"_meta":{"z":1.0E+2},"tools":[{"x-extra":[1e2,-0.0],"name":"tickets_get","description":"Look up one ticket by its numeric id and return its status and owner.","inputSchema":{"type":"object","properties":{"id":{"type":"integer","maximum":1.50e3,"description":"Ticket id."}},"required":["id"]},"annotations":{"readOnlyHint":true}}],"nextCursor":null}`,
			applied: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := fixEngine(t)
			l := mustParse(t, []byte(c.src))
			res, err := e.Fix(context.Background(), l, nil, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := string(res.Listing.Marshal("")), string(mustParse(t, []byte(c.want)).Marshal("")); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
			if len(res.Applied) != c.applied {
				t.Errorf("applied %d repairs, want %d: %+v", len(res.Applied), c.applied, res.Applied)
			}
			again, err := e.Fix(context.Background(), res.Listing, nil, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(again.Applied) != 0 {
				t.Errorf("a second Fix applied %+v", again.Applied)
			}
		})
	}
}

func TestFixRenamesAndRefusals(t *testing.T) {
	ctx := context.Background()
	src := `{"tools":[` +
		`{"name":"tickets_get","description":"Look up one ticket by its numeric id; to change one use updateTicket instead of this.","inputSchema":{"type":"object","properties":{"id":{"type":"integer","description":"Ticket id."}},"required":["id"]},"annotations":{"readOnlyHint":true}},` +
		`{"name":"tickets_search","description":"Search tickets by words in their title and body, newest first, twenty at a time.","inputSchema":{"type":"object","properties":{"q":{"type":"string","description":"Words."}},"required":["q"]},"annotations":{"readOnlyHint":true}},` +
		`{"name":"updateTicket","description":"Change the status or owner of one ticket by its numeric id, and say who changed it.","inputSchema":{"type":"object","properties":{"id":{"type":"integer","description":"Ticket id."}},"required":["id"]},"annotations":{"readOnlyHint":false,"destructiveHint":false}}]}`
	expect := "updateTicket"
	other := "tickets_get"
	tasks := []selection.Task{{Task: "Close ticket 12", Expect: &expect}, {Task: "Show ticket 12", Expect: &other}}
	e := fixEngine(t)
	l := mustParse(t, []byte(src))
	res, err := e.Fix(ctx, l, tasks, FixOptions{Suggested: true, Rules: []string{"name-style"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Applied) != 1 || len(res.Applied[0].Renames) != 1 {
		t.Fatalf("applied %+v, want one rename", res.Applied)
	}
	if got := res.Listing.Tools[2].Get("name").String(); got != "update_ticket" {
		t.Errorf("renamed to %q", got)
	}
	if got := res.Listing.Tools[0].Get("description").String(); !strings.Contains(got, "use update_ticket instead") {
		t.Errorf("the mention was not rewritten: %q", got)
	}
	if *res.Tasks[0].Expect != "update_ticket" || *res.Tasks[1].Expect != "tickets_get" || *tasks[0].Expect != "updateTicket" {
		t.Errorf("task expects %q %q (input %q)", *res.Tasks[0].Expect, *res.Tasks[1].Expect, *tasks[0].Expect)
	}
	// Safe only: the rename is suggested, so nothing applies and the input comes back.
	res, err = e.Fix(ctx, l, tasks, FixOptions{Rules: []string{"name-style"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Applied) != 0 || res.Listing != l || &res.Tasks[0] != &tasks[0] {
		t.Errorf("a safe-only fix applied %+v", res.Applied)
	}
}

// TestFixRefusesNewFindings checks that a repair whose result shows a finding that was not there
// is not applied: readOnlyHint: false on updateTicket makes annotations-assumed-destructive
// appear when applied alone.
func TestFixRefusesNewFindings(t *testing.T) {
	ctx := context.Background()
	src := `{"tools":[{"name":"tickets_update","description":"Change the status or owner of one ticket by its numeric id, and say who changed it.","inputSchema":{"type":"object","properties":{"id":{"type":"integer","description":"Ticket id."}},"required":["id"]}}]}`
	e := fixEngine(t)
	l := mustParse(t, []byte(src))
	reps, err := e.Repairs(ctx, l, nil)
	if err != nil {
		t.Fatal(err)
	}
	var readOnly, destructive string
	for _, r := range reps {
		switch r.Title {
		case `Set readOnlyHint: false (the name says "update")`:
			readOnly = r.ID
		case `Set destructiveHint: true (the name says "update")`:
			destructive = r.ID
		}
	}
	if readOnly == "" || destructive == "" {
		t.Fatalf("repairs on offer: %+v", reps)
	}
	// A repair named by its ID applies without Suggested: the person chose it.
	res, err := e.Fix(ctx, l, nil, FixOptions{IDs: []string{readOnly}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Applied) != 0 {
		t.Errorf("applied %+v, which makes annotations-assumed-destructive appear", res.Applied)
	}
	// Both edit the absent annotations, so destructiveHint goes first; after it no finding asks
	// for readOnlyHint any more.
	res, err = e.Fix(ctx, l, nil, FixOptions{IDs: []string{destructive, readOnly}})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(listing.Marshal(res.Listing.Tools[0].Get("annotations"), "")); len(res.Applied) != 1 || got != `{"destructiveHint":true}` {
		t.Errorf("applied %d: annotations %s", len(res.Applied), got)
	}
}

func TestFixDeterministicAndCancellable(t *testing.T) {
	src := testutil.ReadShared(t, "reference", "fixtures", "confusing-tools.json")
	var first string
	for i := 0; i < 3; i++ {
		res, err := fixEngine(t).Fix(context.Background(), mustParse(t, src), nil, FixOptions{Suggested: true})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range res.Applied {
			ids = append(ids, r.ID)
		}
		got := string(res.Listing.Marshal("  ")) + strings.Join(ids, ",")
		if i == 0 {
			first = got
		} else if got != first {
			t.Fatalf("run %d differs from the first", i)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := fixEngine(t).Fix(ctx, mustParse(t, src), nil, FixOptions{Suggested: true}); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled Fix returned %v", err)
	}
}
