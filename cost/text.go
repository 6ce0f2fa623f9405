package cost

import (
	"fmt"
	"io"
	"strings"
)

// WriteText writes a report as `workbench cost --format text` prints it (with parts, each
// tool's parts under it); the browser's download gives the same text.
func WriteText(w io.Writer, r Report, parts bool) {
	fmt.Fprintf(w, "%d tools, rendered %s, tokenizer %s\n", len(r.Tools), r.Render, r.Tokenizer)
	if r.Estimate {
		m := ""
		if r.Model != "" {
			m = " for " + r.Model
		}
		fmt.Fprintf(w, "ESTIMATE%s: %s\n", m, r.Source)
	}
	fmt.Fprintf(w, "total %d tokens, %d bytes", r.Total.Tokens, r.Total.Bytes)
	if r.Context > 0 {
		fmt.Fprintf(w, ", %.1f%% of a %d-token context", 100*r.ContextShare, r.Context)
	}
	fmt.Fprintf(w, " (frame and overhead %d tokens, %d bytes)\n", r.Overhead.Tokens, r.Overhead.Bytes)
	switch inTools := 0; {
	case r.OneText:
		for _, t := range r.Tools {
			inTools += t.Boundary
		}
		fmt.Fprintf(w, "the total is the rendering counted as one text; %+d tokens form across the boundaries between tools and frame", r.Boundary)
		switch {
		case r.Boundary == 0:
			fmt.Fprintln(w)
		case inTools == r.Boundary:
			fmt.Fprintln(w, " (in the tools' figures: each tool has those where it starts, the last tool also those where it ends)")
		case inTools == 0:
			fmt.Fprintln(w, " (in the frame's figure: the text has no place to cut between tools)")
		default:
			fmt.Fprintf(w, " (%+d in the tools' figures, where each starts; %+d in the frame's, between tools without a place to cut)\n", inTools, r.Boundary-inTools)
		}
	case r.Estimate:
		fmt.Fprintln(w, "the total is an estimate: the tools' and the frame's estimates added up")
	default:
		fmt.Fprintln(w, "the total adds up the tools' texts counted one by one (the rendering is not one text)")
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%8s %8s", "tokens", "bytes")
	if r.Context > 0 {
		fmt.Fprintf(w, " %7s", "share")
	}
	fmt.Fprintln(w, "  tool")
	for _, t := range r.Tools {
		fmt.Fprintf(w, "%8d %8d", t.Tokens, t.Bytes)
		if r.Context > 0 {
			fmt.Fprintf(w, " %6.2f%%", 100*t.Share)
		}
		fmt.Fprintf(w, "  %s\n", t.Name)
		if parts {
			for _, p := range t.Parts {
				fmt.Fprintf(w, "%8d %8d      %s\n", p.Tokens, p.Bytes, p.Name)
			}
		}
	}
	ranked := func(label string, rs []Ranked) {
		names := make([]string, len(rs))
		for i, x := range rs {
			names[i] = fmt.Sprintf("%s (%d)", x.Name, x.Tokens)
		}
		fmt.Fprintf(w, "%s: %s\n", label, strings.Join(names, ", "))
	}
	if len(r.Tools) > 0 {
		fmt.Fprintln(w)
		ranked("cheapest", r.Cheapest)
		ranked("dearest", r.Dearest)
	}
	if d := r.Baseline; d != nil {
		fmt.Fprintf(w, "\nagainst the baseline (%d tokens, %d bytes): %+d tokens, %+d bytes\n", d.Before.Tokens, d.Before.Bytes, d.Change.Tokens, d.Change.Bytes)
		for _, t := range d.Tools {
			fmt.Fprintf(w, "  %-8s %+6d tokens %+7d bytes  %s\n", t.Status, t.Change.Tokens, t.Change.Bytes, t.Name)
		}
	}
}
