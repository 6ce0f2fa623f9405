package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"sort"
	"strings"

	"github.com/tool-workbench/workbench/lint"
)

// profileFlag adds --profile to a subcommand that lints.
func profileFlag(fs *flag.FlagSet) *string {
	return fs.String("profile", "", "turn on the rules and thresholds a directory or platform enforces: "+strings.Join(lint.ProfileNames(), ", "))
}

// checkProfile refuses an unknown --profile, naming the valid ones.
func checkProfile(name string) error {
	if _, err := lint.LookupProfile(name); err != nil {
		return usageError{"--profile: " + err.Error()}
	}
	return nil
}

// flagGiven reports whether the command line set flag name.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// writeProfile prints what profile p turns on (workbench rules --profile NAME).
func writeProfile(out *bufio.Writer, p *lint.Profile, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(p)
	case "markdown":
		fmt.Fprintf(out, "### Profile `%s`: %s\n\n%s.\n\n| Rule | Severity | What it flags | Fix |\n|---|---|---|---|\n", p.Name, p.Title, p.Summary)
		for _, id := range p.Rules {
			r := lint.Lookup(id)
			fmt.Fprintf(out, "| `%s` | %s | %s | %s: %s |\n", id, r.Severity, strings.ReplaceAll(r.Summary, "|", `\|`), r.Fix, strings.ReplaceAll(r.FixNote, "|", `\|`))
		}
		fmt.Fprintf(out, "\nAlso enforced (always on): %s.\n\nSources:\n\n", codeList(p.Enforces))
		for _, s := range p.Sources {
			fmt.Fprintf(out, "- <%s>: %s\n", s.URL, s.Used)
		}
		return nil
	}
	fmt.Fprintf(out, "%s: %s\n%s.\n", p.Name, p.Title, p.Summary)
	if p.Revision != "" {
		fmt.Fprintf(out, "Protocol revision: %s\n", p.Revision)
	}
	fmt.Fprintf(out, "\nTurns on (rule, severity, fix, what it flags)\n")
	for _, id := range p.Rules {
		r := lint.Lookup(id)
		fmt.Fprintf(out, "  %-34s %-7s %-9s %s\n", id, r.Severity, r.Fix, r.Summary)
	}
	if len(p.Severity) > 0 {
		fmt.Fprintf(out, "\nSeverity changes\n")
		ids := make([]string, 0, len(p.Severity))
		for id := range p.Severity {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			fmt.Fprintf(out, "  %-34s %s -> %s\n", id, lint.Lookup(id).Severity, p.Severity[id])
		}
	}
	var limits []string
	if p.MaxNameLength > 0 {
		limits = append(limits, fmt.Sprintf("names of at most %d characters", p.MaxNameLength))
	}
	if p.MaxTools > 0 {
		limits = append(limits, fmt.Sprintf("at most %d tools", p.MaxTools))
	}
	if len(limits) > 0 {
		fmt.Fprintf(out, "\nThresholds: %s\n", strings.Join(limits, "; "))
	}
	fmt.Fprintf(out, "\nAlso enforced (always on)\n  %s\n\nSources\n", strings.Join(p.Enforces, ", "))
	for _, s := range p.Sources {
		fmt.Fprintf(out, "  %s\n    %s\n", s.URL, s.Used)
	}
	fmt.Fprintf(out, "\n%d rules turned on. 'workbench rules ID' prints one rule's doc.\n", len(p.Rules))
	return nil
}

func codeList(ids []string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = "`" + id + "`"
	}
	return strings.Join(out, ", ")
}
