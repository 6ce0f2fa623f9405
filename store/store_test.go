package store

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/listing"
)

func TestParseID(t *testing.T) {
	good := NewID()
	cases := []struct {
		in     string
		errHas string
	}{
		{good, ""},
		{"0123456789abcdef0123456789abcdef", ""},
		{"", "0 characters long"},
		{strings.ToUpper(good), "position"},
		{good[:31] + "g", "position 32"},
		{good + "0", "33 characters"},
		{"../../../../../../etc/passwd\x00abc", "position 1"},
		{strings.Repeat("é", 16), "'é' at position 1"},
	}
	for _, tc := range cases {
		got, err := ParseID("workspace ID", tc.in)
		if tc.errHas == "" {
			if err != nil || got != tc.in {
				t.Errorf("ParseID(%q) = %q, %v", tc.in, got, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.errHas) || KindOf(err) != Invalid {
			t.Errorf("ParseID(%q) error = %v; want an Invalid error saying %q", tc.in, err, tc.errHas)
		}
	}
}

// TestNewIDUnique: IDs name workspaces and are the tokens of share links and sessions, so every
// NewID must be new, and one ParseID accepts.
func TestNewIDUnique(t *testing.T) {
	const n = 10000
	seen := make(map[string]bool, n)
	for range n {
		id := NewID()
		if _, err := ParseID("workspace ID", id); err != nil {
			t.Fatalf("NewID() = %q, which ParseID refuses: %v", id, err)
		}
		if seen[id] {
			t.Fatalf("NewID() returned %q twice in %d calls", id, len(seen)+1)
		}
		seen[id] = true
	}
}

func FuzzParseID(f *testing.F) {
	f.Add(NewID())
	f.Add("")
	f.Add("0123456789ABCDEF0123456789abcdef")
	f.Add(strings.Repeat("\xff", 32))
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseID("ID", s)
		if err != nil {
			if KindOf(err) != Invalid || len(err.Error()) > 300 {
				t.Fatalf("ParseID(%q): %v", s, err)
			}
			return
		}
		if got != s || len(s) != 32 || strings.Trim(s, "0123456789abcdef") != "" {
			t.Fatalf("ParseID accepted %q", s)
		}
	})
}

func TestErrorKinds(t *testing.T) {
	base := Errorf(Conflict, "name revision", "name taken")
	wrapped := fmt.Errorf("handler: %w", base)
	cases := []struct {
		err  error
		kind Kind
	}{
		{base, Conflict}, {wrapped, Conflict}, {errors.New("plain"), Internal}, {nil, Internal},
		{&Error{Kind: NotFound, Op: "get", Err: errors.New("gone")}, NotFound},
	}
	for _, tc := range cases {
		if got := KindOf(tc.err); got != tc.kind {
			t.Errorf("KindOf(%v) = %s, want %s", tc.err, got, tc.kind)
		}
	}
	if !errors.Is(wrapped, ErrConflict) || errors.Is(wrapped, ErrNotFound) {
		t.Error("errors.Is does not match by kind")
	}
	if got := wrapped.Error(); got != "handler: name revision: name taken" {
		t.Errorf("message = %q", got)
	}
}

func TestCoalesces(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	desc := "/tools/0/description"
	set := func(p string) []listing.Op {
		return []listing.Op{{Kind: listing.OpSet, Path: p, Value: listing.NewString("x")}}
	}
	head := Revision{Number: 2, Kind: KindEdit, Author: "ada", Field: desc, Updated: t0, Edits: 3}
	cases := []struct {
		name string
		head func(r *Revision)
		edit Edit
		want bool
	}{
		{"same person, field, within the window", nil, Edit{Author: "ada", Ops: set(desc), Now: t0.Add(CoalesceWindow)}, true},
		{"after the window", nil, Edit{Author: "ada", Ops: set(desc), Now: t0.Add(CoalesceWindow + 1)}, false},
		{"clock went back", nil, Edit{Author: "ada", Ops: set(desc), Now: t0.Add(-1)}, false},
		{"another person", nil, Edit{Author: "bob", Ops: set(desc), Now: t0}, false},
		{"another person of the same name", nil, Edit{Author: "ada", AuthorID: "s2", Ops: set(desc), Now: t0}, false},
		{"another field", nil, Edit{Author: "ada", Ops: set("/tools/0/title"), Now: t0}, false},
		{"the field cleared", nil, Edit{Author: "ada", Ops: []listing.Op{{Kind: listing.OpRemove, Path: desc}}, Now: t0}, true},
		{"a tool removed", func(r *Revision) { r.Field = "/tools/0" }, Edit{Author: "ada", Ops: []listing.Op{{Kind: listing.OpRemove, Path: "/tools/0"}}, Now: t0}, false},
		{"two removals", nil, Edit{Author: "ada", Ops: []listing.Op{{Kind: listing.OpRemove, Path: desc}, {Kind: listing.OpRemove, Path: desc}}, Now: t0}, false},
		{"named head", func(r *Revision) { r.Name = "rc1" }, Edit{Author: "ada", Ops: set(desc), Now: t0}, false},
		{"restore head", func(r *Revision) { r.Kind = KindRestore }, Edit{Author: "ada", Ops: set(desc), Now: t0}, false},
		{"baseline", func(r *Revision) { r.Number = 0 }, Edit{Author: "ada", Ops: set(desc), Now: t0}, false},
		{"full", func(r *Revision) { r.Edits = MaxCoalescedEdits }, Edit{Author: "ada", Ops: set(desc), Now: t0}, false},
		{"no ops", nil, Edit{Author: "ada", Now: t0}, false},
	}
	for _, tc := range cases {
		h := head
		if tc.head != nil {
			tc.head(&h)
		}
		if got := Coalesces(h, tc.edit); got != tc.want {
			t.Errorf("%s: Coalesces = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestCheckText(t *testing.T) {
	cases := []struct {
		s                   string
		required, multiline bool
		errHas              string
	}{
		{"Ada ✓", false, false, ""},
		{"", true, false, "is empty"},
		{"line\nbreak", false, false, "control character U+000A"},
		{"line\nbreak", false, true, ""},
		{"bell\a", false, true, "U+0007"},
		{"\xff", false, false, "not valid UTF-8"},
		{strings.Repeat("x", 11), false, false, "11 characters long; the limit is 10"},
		{"a\u0085b", false, false, "control character U+0085"},
		{"a\u202eb", false, false, "bidirectional control U+202E"},
		{"a\u2067b", false, true, "bidirectional control U+2067"},
		{"שלום world", false, false, ""},
	}
	for _, tc := range cases {
		err := CheckText("op", "name", tc.s, 10, tc.required, tc.multiline)
		if (err == nil) != (tc.errHas == "") || err != nil && !strings.Contains(err.Error(), tc.errHas) {
			t.Errorf("CheckText(%q) = %v; want %q", tc.s, err, tc.errHas)
		}
	}
}
