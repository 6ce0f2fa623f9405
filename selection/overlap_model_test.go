package selection

import (
	"context"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/listing"
)

// TestOverlapAddModel adds a hand-made confusion matrix to a small map: each pair's model part
// is (C[a][b]+C[b][a]) over the two rows' calls, names are matched by name (labels the listing
// lacks are left out), a pair only the model links is added, the strength and the order follow,
// and the explanations say so.
func TestOverlapAddModel(t *testing.T) {
	l, err := listing.Parse([]byte(`[
		{"name": "tickets_get", "description": "Show one support ticket by its id."},
		{"name": "tickets_search", "description": "Search support tickets by status or words."},
		{"name": "users_find", "description": "Find a user account by email."},
		{"name": "weather_now", "description": "Current weather for a city."}]`), listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := Overlap(context.Background(), l, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := map[[2]int]Pair{}
	for _, p := range m.Pairs {
		before[[2]int{p.I, p.J}] = p
	}
	labels := []string{"tickets_get", "tickets_search", "users_find", "weather_now", "(none)", "no_such_tool"}
	counts := [][]int{
		{6, 3, 0, 0, 0, 1}, // tickets_get: 3 went to tickets_search
		{1, 9, 0, 0, 0, 0}, // tickets_search: 1 went to tickets_get
		{0, 0, 4, 4, 0, 0}, // users_find: 4 went to weather_now, a pair no word links
		{0, 0, 0, 0, 0, 0}, // weather_now expected by no task
		{0, 0, 0, 0, 2, 0},
		{0, 0, 0, 0, 0, 0},
	}
	matched, err := m.AddModel(labels, counts)
	if err != nil || matched != 4 {
		t.Fatalf("matched %d, %v; want 4", matched, err)
	}
	got := map[[2]int]Pair{}
	for _, p := range m.Pairs {
		got[[2]int{p.I, p.J}] = p
	}
	tests := []struct {
		i, j            int
		model           float64
		confused, calls int
	}{
		{0, 1, 4.0 / 20, 4, 20}, // rows of 10 and 10 calls
		{2, 3, 4.0 / 8, 4, 8},   // weather_now's row is empty
		{0, 2, 0, 0, 18},
	}
	for _, tt := range tests {
		p, ok := got[[2]int{tt.i, tt.j}]
		if !ok {
			if _, was := before[[2]int{tt.i, tt.j}]; was || tt.confused > 0 {
				t.Errorf("pair %d/%d missing", tt.i, tt.j)
			}
			continue
		}
		if p.Model == nil || *p.Model != tt.model || p.ModelConfused != tt.confused || p.ModelCalls != tt.calls {
			t.Errorf("pair %d/%d: model %v, %d of %d; want %v, %d of %d", tt.i, tt.j, p.Model, p.ModelConfused, p.ModelCalls, tt.model, tt.confused, tt.calls)
		}
		if want := min(1, max(p.Desc, p.Tasks, p.Shared, tt.model)); p.Strength != want {
			t.Errorf("pair %d/%d: strength %v, want %v", tt.i, tt.j, p.Strength, want)
		}
	}
	if _, was := before[[2]int{2, 3}]; was {
		t.Fatal("users_find and weather_now already compete: the test needs a pair only the model links")
	}
	for k := 1; k < len(m.Pairs); k++ {
		if m.Pairs[k].Strength > m.Pairs[k-1].Strength {
			t.Errorf("pairs not sorted again: %v before %v", m.Pairs[k-1], m.Pairs[k])
		}
	}
	if len(m.Order) != len(m.Names) {
		t.Errorf("order %v does not list every tool once", m.Order)
	}
	p := got[[2]int{2, 3}]
	if a := m.Advice(p); !strings.Contains(a, "the model chose one for the other in 4 of 8 calls") {
		t.Errorf("advice %q does not name the model's confusions", a)
	}
	if title := m.cellTitle(p); !strings.Contains(title, "model run: 0.50 (4 of 8 calls chose the other)") {
		t.Errorf("cell title %q does not explain the model part", title)
	}
}

// TestOverlapAddModelRefuses: a matrix whose shape does not fit its labels is refused, and
// labels that name no tool match none.
func TestOverlapAddModelRefuses(t *testing.T) {
	l, err := listing.Parse([]byte(`[{"name": "a", "description": "one"}, {"name": "b", "description": "two"}]`), listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		labels  []string
		counts  [][]int
		matched int
		err     bool
	}{
		{"rows short", []string{"a", "b"}, [][]int{{1, 0}}, 0, true},
		{"ragged", []string{"a", "b"}, [][]int{{1, 0}, {1}}, 0, true},
		{"other listing", []string{"x", "y"}, [][]int{{1, 1}, {0, 1}}, 0, false},
		{"duplicate label", []string{"a", "a"}, [][]int{{1, 1}, {1, 1}}, 1, false},
	} {
		m, err := Overlap(context.Background(), l, nil)
		if err != nil {
			t.Fatal(err)
		}
		matched, err := m.AddModel(tt.labels, tt.counts)
		if (err != nil) != tt.err || matched != tt.matched {
			t.Errorf("%s: matched %d, error %v; want %d, error %v", tt.name, matched, err, tt.matched, tt.err)
		}
		for _, p := range m.Pairs {
			if p.I == p.J {
				t.Errorf("%s: a tool paired with itself: %+v", tt.name, p)
			}
		}
	}
}
