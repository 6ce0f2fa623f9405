package main

import (
	"bufio"
	"fmt"

	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/listing"
)

// costGate is what `workbench cost --baseline` does after the report: the change in the gate's
// formats, and the verdict against --max-increase.
type costGate struct {
	format string
	limit  *cost.Limit
}

// costGateFlags checks the format and the limit, which need a baseline to compare against.
func costGateFlags(format, baseline, maxIncrease string) (*costGate, error) {
	switch format {
	case "text", "json":
	case "github", "markdown":
		if baseline == "" {
			return nil, usageError{fmt.Sprintf("--format %s shows the change against a baseline: give --baseline FILE", format)}
		}
	default:
		return nil, usageError{fmt.Sprintf("unknown format %q; use text, json, github or markdown", format)}
	}
	g := &costGate{format: format}
	if maxIncrease != "" {
		if baseline == "" {
			return nil, usageError{"--max-increase limits the growth against a baseline: give --baseline FILE"}
		}
		l, err := cost.ParseLimit(maxIncrease)
		if err != nil {
			return nil, usageError{"--max-increase: " + err.Error()}
		}
		g.limit = &l
	}
	return g, nil
}

// write writes the change of rep against its baseline in the gate's format (text and json have
// it in the report already) and returns exit 1 when the listing grew past the limit.
func (cg *costGate) write(out *bufio.Writer, e *env, rep *cost.Report, source string, l *listing.Listing) error {
	g, err := rep.Gate()
	if err != nil {
		return err
	}
	o := cost.GateOptions{Source: source, Line: func(i int) int {
		if i < 0 || i >= len(l.Tools) || l.Tools[i].Pos < 0 {
			return 0
		}
		line, _, _ := listing.Position(l.Source, l.Tools[i].Pos)
		return line
	}}
	if cg.limit != nil {
		v := g.Check(*cg.limit)
		o.Verdict = &v
	}
	switch cg.format {
	case "github":
		err = cost.WriteGateGitHub(out, g, o)
	case "markdown":
		err = cost.WriteGateMarkdown(out, g, o)
	}
	if err != nil {
		return err
	}
	if o.Verdict != nil && o.Verdict.Over {
		fmt.Fprintf(e.stderr, "workbench cost: over the limit: %s\n", o.Verdict.Message)
		return exitError{1}
	}
	return nil
}
