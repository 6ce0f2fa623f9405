package review

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

// benchWorkspace is a workspace of 50 tools with 10,000 edits (descriptions typed, tools moved,
// inserted and removed, five whole listings committed) and 5,000 threads made along the way.
func benchWorkspace(b *testing.B) *fixture {
	b.Helper()
	var src strings.Builder
	src.WriteString(`[`)
	for i := range 50 {
		if i > 0 {
			src.WriteString(",")
		}
		fmt.Fprintf(&src, `{"name": "tool_%d", "description": "Tool %d does its thing.", "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "description": "Query %d."}}}}`, i, i, i)
	}
	src.WriteString(`]`)
	f := newFixture(b, src.String())
	for i := range 10000 {
		switch {
		case i%2000 == 1999:
			head := f.head().Listing
			tools := append([]*listing.Value(nil), head.Tools...)
			tools[0], tools[len(tools)-1] = tools[len(tools)-1], tools[0]
			f.edit(set("/tools", listing.NewArray(tools...)))
		case i%50 == 10:
			f.edit(listing.Op{Kind: listing.OpInsert, Path: "/tools/3", Value: tool(fmt.Sprintf("new_%d", i), "New.")})
		case i%50 == 40:
			f.edit(listing.Op{Kind: listing.OpRemove, Path: "/tools/3"})
		case i%10 == 5:
			f.edit(listing.Op{Kind: listing.OpMove, Path: "/tools", From: i % 40, To: (i * 7) % 40})
		default:
			f.edit(set(fmt.Sprintf("/tools/%d/description", i%40), listing.NewString(fmt.Sprintf("Edit %d.", i))))
		}
		if i%2 == 0 {
			head := f.head().Listing
			k := (i / 2) % len(head.Tools)
			name := head.Tools[k].Get("name").String()
			if _, err := f.svc.Comment(f.ctx, f.ws, Target{Index: k, Tool: name, Field: "/description"}, "Why?", Author{Name: "Ana"}); err != nil {
				b.Fatal(err)
			}
		}
	}
	return f
}

// BenchmarkThreads answers Threads for a workspace of 5,000 threads and 10,000 edits: warm (the
// places cached at the head, as every call after the first) and cold (a new service, replaying
// every edit since the oldest thread).
func BenchmarkThreads(b *testing.B) {
	f := benchWorkspace(b)
	want, err := f.service().Threads(f.ctx, f.ws)
	if err != nil {
		b.Fatal(err)
	}
	if len(want) != store.MaxComments {
		b.Fatalf("%d threads, want %d", len(want), store.MaxComments)
	}
	b.Run("warm", func(b *testing.B) {
		svc := f.service()
		got, err := svc.Threads(f.ctx, f.ws)
		if err != nil {
			b.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			b.Fatal("the warm answer differs from the cold one")
		}
		for b.Loop() {
			if _, err := svc.Threads(f.ctx, f.ws); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			if _, err := f.service().Threads(f.ctx, f.ws); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("status", func(b *testing.B) {
		svc := f.service()
		for b.Loop() {
			if _, err := svc.Status(f.ctx, f.ws, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkStatusStale answers Status at a new head each time, as a page does at every
// keystroke, for a workspace of 300 tools of about 2.2 KB whose one approval went stale: Ana
// approved mid-burst in a revision of 498 keystrokes, and the typing went on.
func BenchmarkStatusStale(b *testing.B) {
	var src strings.Builder
	src.WriteString(`[`)
	for i := range 300 {
		if i > 0 {
			src.WriteString(",")
		}
		fmt.Fprintf(&src, `{"name": "tool_%d", "description": %q}`, i, strings.Repeat("Long text. ", 200))
	}
	src.WriteString(`]`)
	f := newFixture(b, src.String())
	t0 := f.tick()
	for i := range 500 {
		if i == 498 {
			if _, err := f.svc.SignOff(f.ctx, f.ws, store.Approved, "", Author{Name: "Ana", ID: "ana"}); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := f.st.AppendEdit(f.ctx, store.Edit{Workspace: f.ws, Author: "Bo", AuthorID: "bo",
			Ops: []listing.Op{set("/tools/0/description", listing.NewString(fmt.Sprintf("Typing %d.", i)))}, Now: t0.Add(time.Duration(i) * time.Second)}); err != nil {
			b.Fatal(err)
		}
	}
	svc := f.service()
	k := 0
	for b.Loop() {
		b.StopTimer()
		k++
		f.edit(set("/tools/1/description", listing.NewString(fmt.Sprintf("Other %d.", k))))
		b.StartTimer()
		st, err := svc.Status(f.ctx, f.ws, 1)
		if err != nil {
			b.Fatal(err)
		}
		if len(st.Signoffs) != 1 || st.Signoffs[0].Current || len(st.Signoffs[0].Changed) == 0 {
			b.Fatalf("sign-offs %+v, want one stale", st.Signoffs)
		}
	}
}
