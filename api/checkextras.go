package api

import (
	"strconv"
	"strings"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/listing"
)

// extrasOf reads the members that ask a check for more than findings and verdicts, as check's
// flags of the same names: "damage", "minDrop", "orderBias" and "overlap". The damage test and
// the order bias rank tasks again, so they are refused without "tasks".
func (r *request) extrasOf() (analysis.Extras, error) {
	var x analysis.Extras
	var err error
	if x.Damage, err = r.boolean("damage"); err != nil {
		return x, err
	}
	if x.OrderBias, err = r.boolean("orderBias"); err != nil {
		return x, err
	}
	if x.Overlap, err = r.boolean("overlap"); err != nil {
		return x, err
	}
	if v := r.get("minDrop"); v != nil {
		share, ok := shareOf(v)
		if !ok {
			return x, r.invalid("minDrop", v, `"minDrop": 0.25 (or "25%")`,
				"\"minDrop\" is a share of a tool's tasks: a number from 0 to 1, or a percentage such as \"25%%\"")
		}
		x.MinDrop, x.Damage = &share, true
	}
	if r.get("tasks") == nil {
		for _, k := range []string{"damage", "minDrop", "orderBias"} {
			if v := r.get(k); v != nil && (v.Kind != listing.Bool || v.Bool) {
				return x, r.invalid(k, v, `send "tasks" with "`+k+`"`, "%q ranks the tasks again: send \"tasks\", or leave it out", k)
			}
		}
	}
	return x, nil
}

// shareOf reads a share from 0 to 1: a JSON number, or a string holding one or a percentage.
func shareOf(v *listing.Value) (float64, bool) {
	s := v.Str
	if v.Kind != listing.Number && v.Kind != listing.String {
		return 0, false
	}
	num, pct := strings.CutSuffix(strings.TrimSpace(s), "%")
	if pct && v.Kind == listing.Number {
		return 0, false
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, false
	}
	if pct {
		f /= 100
	}
	return f, f >= 0 && f <= 1 // NaN fails both
}
