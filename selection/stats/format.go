package stats

import (
	"fmt"
	"math"
	"strconv"
)

// The run report (workbench run) and the browser's Runs tab show the same figures; they format
// them here so that the two read alike.

// NoValue stands for a figure that does not exist, such as the precision of a tool that was
// never chosen. It is an en dash, the usual mark of an empty cell, which the report already
// uses between interval bounds; a hyphen beside signed figures would read as a minus sign.
const NoValue = "–"

// FormatProportion formats a proportion (an accuracy, a share of calls) with three decimals,
// enough to show a change of one call in a few hundred.
func FormatProportion(p float64) string { return strconv.FormatFloat(p, 'f', 3, 64) }

// FormatRange formats a confidence interval of proportions: "0.646–0.985".
func FormatRange(iv Interval) string {
	return FormatProportion(iv.Low) + "–" + FormatProportion(iv.High)
}

// FormatRate formats k successes in n trials with their interval iv:
// "11/12 = 0.917 (95% CI 0.646–0.985)", or "n/a" when there were no trials.
func FormatRate(k, n int, iv Interval) string {
	if n <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%d/%d = %s (95%% CI %s)", k, n, FormatProportion(float64(k)/float64(n)), FormatRange(iv))
}

// FormatOptional formats a figure that may not exist (a tool's precision or recall) with two
// decimals, or NoValue.
func FormatOptional(p *float64) string {
	if p == nil {
		return NoValue
	}
	return strconv.FormatFloat(*p, 'f', 2, 64)
}

// FormatDifference formats the interval of a paired difference of accuracies over pairs pairs:
// "-0.250 to +0.083", or "n/a" when no pair was scored (the interval is then all of [-1, 1]).
func FormatDifference(iv Interval, pairs int) string {
	if pairs == 0 || math.IsNaN(iv.Low) || math.IsNaN(iv.High) {
		return "n/a"
	}
	return fmt.Sprintf("%+.3f to %+.3f", iv.Low, iv.High)
}
