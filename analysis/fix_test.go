package analysis

import (
	"context"
	"testing"

	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
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
