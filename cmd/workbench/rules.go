package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/tool-workbench/workbench/lint"
)

func init() {
	register(command{
		name:    "rules",
		summary: "list the lint rules, or print one rule's doc (workbench rules ID)",
		usage:   "[ID] [--format text|json|markdown]",
		run:     runRules,
	})
}

func runRules(ctx context.Context, e *env, args []string) error {
	c := commands["rules"]
	fs := newFlags(c, e.stderr)
	format := fs.String("format", "text", "output format: text, json or markdown")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageError{"rules takes at most one rule ID"}
	}
	if *format != "text" && *format != "json" && *format != "markdown" {
		return usageError{fmt.Sprintf("unknown format %q; use text, json or markdown", *format)}
	}
	out := bufio.NewWriter(e.stdout)
	defer out.Flush()
	rules := lint.Rules()
	if len(pos) == 1 {
		r := lint.Lookup(pos[0])
		if r == nil {
			return usageError{fmt.Sprintf("unknown rule %q%s; run 'workbench rules' for the list", pos[0], suggest(pos[0], rules))}
		}
		rules = []*lint.Rule{r}
		if *format == "text" {
			out.WriteString(r.Doc())
			return nil
		}
	}
	switch *format {
	case "json":
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if len(pos) == 1 {
			return enc.Encode(rules[0])
		}
		return enc.Encode(rules)
	case "markdown":
		if len(pos) == 1 {
			fmt.Fprintf(out, "### %s\n\n%s", rules[0].ID, rules[0].Doc())
			return nil
		}
		out.WriteString("| Rule | Category | Severity | Scope | What it flags | Fix |\n|---|---|---|---|---|---|\n")
		for _, r := range rules {
			fmt.Fprintf(out, "| `%s` | %s | %s | %s | %s | %s: %s |\n", r.ID, r.Category, r.Severity, r.Scope, strings.ReplaceAll(r.Summary, "|", `\|`),
				r.Fix, strings.ReplaceAll(r.FixNote, "|", `\|`))
		}
		return nil
	}
	cat := lint.Category("")
	for _, r := range rules {
		if r.Category != cat {
			cat = r.Category
			fmt.Fprintf(out, "\n%s\n", cat)
		}
		fmt.Fprintf(out, "  %-34s %-7s %-9s %s\n", r.ID, r.Severity, r.Scope, r.Summary)
	}
	fmt.Fprintf(out, "\n%d rules. 'workbench rules ID' prints one rule's doc.\n", len(rules))
	return nil
}

// suggest names the rule IDs that contain id's first word, to help with a typo.
func suggest(id string, rules []*lint.Rule) string {
	key := strings.SplitN(id, "-", 2)[0]
	var near []string
	for _, r := range rules {
		if key != "" && strings.Contains(r.ID, key) {
			near = append(near, r.ID)
		}
	}
	sort.Strings(near)
	if len(near) == 0 || len(near) > 6 {
		return ""
	}
	return " (did you mean " + strings.Join(near, ", ") + "?)"
}
