package stats

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// The expected values were worked out by hand from the closed forms (and checked with a
// separate few lines of Python); 8/10 → [0.4902, 0.9433] is the textbook example.
func TestWilson(t *testing.T) {
	tests := []struct {
		k, n      int
		low, high float64
	}{
		{8, 10, 0.49016247153664183, 0.9433178485456247},
		{0, 10, 0, 0.2775327998628892},
		{5, 10, 0.236593090512564, 0.7634069094874361},
		{10, 10, 0.7224672001371107, 1},
		{0, 0, 0, 1},
	}
	for _, tt := range tests {
		got := Wilson(tt.k, tt.n, Z95)
		if !near(got.Low, tt.low) || !near(got.High, tt.high) {
			t.Errorf("Wilson(%d, %d) = [%.10f, %.10f], want [%.10f, %.10f]", tt.k, tt.n, got.Low, got.High, tt.low, tt.high)
		}
	}
}

func TestMcNemarExact(t *testing.T) {
	tests := []struct {
		b, c int
		p    float64
	}{
		{1, 6, 2 * 8.0 / 128},              // (C(7,0)+C(7,1)) / 2^7, doubled
		{6, 1, 2 * 8.0 / 128},              // symmetric
		{0, 5, 2 * 1.0 / 32},               // one tail of one outcome
		{2, 10, 2 * 79.0 / 4096},           // (1+12+66) / 2^12, doubled
		{3, 3, 1},                          // capped at 1
		{0, 0, 1},                          // no discordant pairs
		{0, 1, 1},                          // 2 * 1/2
		{1000, 1000, 1},                    // large n stays finite
		{30000, 30100, 0.6863385030050144}, // the log-space path; exact value from Python integers
		{0, 60, 2 * math.Pow(0.5, 60)},     // far tail, no underflow to 0
	}
	for _, tt := range tests {
		got := McNemarExact(tt.b, tt.c)
		tol := 1e-12
		if tt.b+tt.c > exactLimit {
			tol = 1e-9
		}
		if math.Abs(got-tt.p) > tol*tt.p {
			t.Errorf("McNemarExact(%d, %d) = %.15g, want %.15g", tt.b, tt.c, got, tt.p)
		}
	}
	if !math.IsNaN(McNemarExact(-1, 2)) {
		t.Error("McNemarExact(-1, 2) should be NaN")
	}
}

func TestDifferenceInterval(t *testing.T) {
	tests := []struct {
		name      string
		p         Paired
		diff      float64
		low, high float64
	}{
		// Newcombe's (1998) first example: 12 both, 2 and 1 discordant, 21 neither; here the
		// baseline holds the 2, so the difference is negative.
		{"newcombe", Paired{12, 2, 1, 21}, -1.0 / 36, -0.11990791307733363, 0.06493720266699203},
		{"empty", Paired{}, 0, -1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := tt.p.Difference(); !near(d, tt.diff) {
				t.Errorf("Difference = %v, want %v", d, tt.diff)
			}
			iv := tt.p.DifferenceInterval(Z95)
			if !near(iv.Low, tt.low) || !near(iv.High, tt.high) {
				t.Errorf("interval = [%.12f, %.12f], want [%.12f, %.12f]", iv.Low, iv.High, tt.low, tt.high)
			}
		})
	}
	// Mirror symmetry: swapping the roles negates the interval.
	a := Paired{12, 2, 1, 21}.DifferenceInterval(Z95)
	b := Paired{12, 1, 2, 21}.DifferenceInterval(Z95)
	if !near(a.Low, -b.High) || !near(a.High, -b.Low) {
		t.Errorf("swapped tables give [%v, %v] and [%v, %v], want mirror images", a.Low, a.High, b.Low, b.High)
	}
	// All pairs move one way: the interval stays inside [-1, 1] and excludes 0.
	c := Paired{0, 0, 10, 0}.DifferenceInterval(Z95)
	if c.Low <= 0 || c.High > 1 {
		t.Errorf("all-improved interval = %+v, want inside (0, 1]", c)
	}
}
