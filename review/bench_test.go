package review

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

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
