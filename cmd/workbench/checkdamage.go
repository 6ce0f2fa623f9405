package main

import (
	"bufio"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/tool-workbench/workbench/analysis"
)

// damageFlags are check's --damage and --min-drop, as given.
type damageFlags struct {
	on      *bool
	minDrop *string
}

func addDamageFlags(fs *flag.FlagSet) damageFlags {
	return damageFlags{
		on:      fs.Bool("damage", false, "with --tasks: damage each expected tool's description (blank, generic, truncated, without its tasks' words), rank its tasks again and show how far they fall (text and json formats)"),
		minDrop: fs.String("min-drop", "", "with --tasks: exit 1 when a tool that wins any of its tasks loses less than this share of them with its description blanked (0.25 or 25%; implies --damage)"),
	}
}

// damageOptions is the damage test asked for: minDrop nil without a gate.
type damageOptions struct {
	minDrop *float64
}

// options checks the flags against the format and the task file; nil when the damage test is
// not asked for.
func (f damageFlags) options(format, tasks string) (*damageOptions, error) {
	if !*f.on && *f.minDrop == "" {
		return nil, nil
	}
	if tasks == "" {
		return nil, usageError{"--damage and --min-drop rank tasks again: give --tasks FILE"}
	}
	if format != "text" && format != "json" {
		return nil, usageError{fmt.Sprintf("--damage and --min-drop show in the text and json formats, not %s", format)}
	}
	o := &damageOptions{}
	if *f.minDrop != "" {
		v, err := parseShare(*f.minDrop)
		if err != nil {
			return nil, usageError{"--min-drop: " + err.Error()}
		}
		o.minDrop = &v
	}
	return o, nil
}

// parseShare reads a share of a tool's tasks: a number from 0 to 1, or a percentage.
func parseShare(s string) (float64, error) {
	num, pct := strings.CutSuffix(strings.TrimSpace(s), "%")
	v, err := strconv.ParseFloat(num, 64)
	if err == nil && pct {
		v /= 100
	}
	if err != nil || v != v || v < 0 || v > 1 {
		return 0, fmt.Errorf("%q is not a share of a tool's tasks: give a number from 0 to 1, such as 0.25, or a percentage, such as 25%%", s)
	}
	return v, nil
}

// writeDamageText adds the damage table to the text format, when asked for.
func writeDamageText(out *bufio.Writer, r *analysis.Report) error {
	if r.Damage == nil {
		return nil
	}
	return analysis.WriteDamageText(out, r.Damage)
}
