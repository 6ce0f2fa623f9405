package stats

import (
	"math"
	"testing"
)

func TestFormat(t *testing.T) {
	two3 := 2.0 / 3
	zero := 0.0
	tests := []struct{ got, want string }{
		{FormatProportion(11.0 / 12), "0.917"},
		{FormatProportion(1), "1.000"},
		{FormatRange(Wilson(11, 12, Z95)), "0.646–0.985"},
		{FormatRate(11, 12, Wilson(11, 12, Z95)), "11/12 = 0.917 (95% CI 0.646–0.985)"},
		{FormatRate(0, 0, Wilson(0, 0, Z95)), "n/a"},
		{FormatOptional(&two3), "0.67"},
		{FormatOptional(&zero), "0.00"},
		{FormatOptional(nil), "–"},
		{FormatDifference(Interval{-0.25, 1.0 / 12}, 12), "-0.250 to +0.083"},
		{FormatDifference(Paired{}.DifferenceInterval(Z95), 0), "n/a"},
		{FormatDifference(Interval{math.NaN(), math.NaN()}, 3), "n/a"},
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("case %d: %q, want %q", i, tt.got, tt.want)
		}
	}
}
