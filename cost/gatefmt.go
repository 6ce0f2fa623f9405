package cost

import (
	"fmt"
	"io"
	"strings"
)

// GateOptions say how a gate is written.
type GateOptions struct {
	// Source names the listing (the file as given): the heading's, and the annotations' file.
	Source string
	// Line, if set, gives the line a tool of the listing starts on (0: unknown), so that an
	// annotation points at it.
	Line func(index int) int
	// Verdict is the result against --max-increase, if one was given.
	Verdict *Verdict
	// Rows bounds the markdown table (default 100): a summary or a comment stays readable, and
	// within GitHub's size limits, on a listing of thousands of tools.
	Rows int
}

// gateNotices is how many tools --format github annotates: GitHub shows ten notices a step, and
// the summary is one of them.
const gateNotices = 8

// mdCell makes text safe inside a Markdown table cell and inert as Markdown and HTML: a tool's
// name is the listing author's text.
var mdCell = strings.NewReplacer("\\", `\\`, "|", `\|`, "\n", " ", "\r", " ", "<", "&lt;", ">", "&gt;", "&", "&amp;",
	"`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "~", `\~`, "#", `\#`, "@", "@\u200b")

// GitHub's workflow commands: data escapes %, CR and LF; property values also escape : and ,
// (the toolkit's escapeData and escapeProperty), so a name cannot end a command or start one.
var (
	ghData = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	ghProp = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

// headline is the change in one line: totals, the change and the counts of each kind.
func (g *Gate) headline() string {
	change := g.After.Tokens - g.Before.Tokens
	return fmt.Sprintf("%s tokens against the baseline's %s: %s (%s); %d added, %d removed, %d grown, %d shrunk, %d unchanged",
		Group(g.After.Tokens), Group(g.Before.Tokens), Signed(change), Percent(change, g.Before.Tokens),
		g.Added, g.Removed, g.Grown, g.Shrunk, g.Unchanged)
}

// WriteGateMarkdown writes the change as Markdown for a job summary or a pull request comment:
// the totals, the verdict against the limit, and a table of the changed tools, largest first.
func WriteGateMarkdown(w io.Writer, g *Gate, o GateOptions) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## workbench cost: %s\n\n", mdCell.Replace(o.Source))
	if v := o.Verdict; v != nil {
		if v.Over {
			fmt.Fprintf(&b, "**Over the limit:** %s.\n\n", mdCell.Replace(v.Message))
		} else {
			fmt.Fprintf(&b, "**Within the limit:** %s.\n\n", mdCell.Replace(v.Message))
		}
	}
	change := g.After.Tokens - g.Before.Tokens
	fmt.Fprintf(&b, "| Listing | Before | After | Change | |\n|---|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| total tokens (%s, %s) | %s | %s | %s | %s |\n\n", mdCell.Replace(g.Render), mdCell.Replace(g.Tokenizer),
		Group(g.Before.Tokens), Group(g.After.Tokens), Signed(change), Percent(change, g.Before.Tokens))
	fmt.Fprintf(&b, "%d added, %d removed, %d grown, %d shrunk, %d unchanged.", g.Added, g.Removed, g.Grown, g.Shrunk, g.Unchanged)
	if g.Estimate {
		fmt.Fprintf(&b, " The %s rendering's tokens are an estimate.", mdCell.Replace(g.Render))
	}
	b.WriteString("\n")
	rows := o.Rows
	if rows <= 0 {
		rows = 100
	}
	if len(g.Changes) > 0 {
		b.WriteString("\n| Tool | Change | Before | After | Tokens | |\n|---|---|---:|---:|---:|---:|\n")
		for i, c := range g.Changes {
			if i == rows {
				rest := 0
				for _, c := range g.Changes[i:] {
					rest += c.Delta()
				}
				fmt.Fprintf(&b, "\n%d more changed tools (%s tokens together) are not shown.\n", len(g.Changes)-i, Signed(rest))
				break
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", mdCell.Replace(c.Name), c.Status,
				cell(c.Before, c.Status == "added"), cell(c.After, c.Status == "removed"), Signed(c.Delta()), Percent(c.Delta(), c.Before))
		}
	}
	if g.Added > 0 && g.Removed > 0 {
		b.WriteString("\nTools are matched by name: a renamed tool shows as one removed and one added.\n")
	}
	if len(g.Changes) > 0 && g.Total() != g.After.Tokens-g.Before.Tokens {
		fmt.Fprintf(&b, "\nEach tool is counted on its own; the %s tokens that form across the boundaries between tools are in the listing's total only.\n", Signed(g.After.Tokens-g.Before.Tokens-g.Total()))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cell is a count in the table, or a dash where the tool is absent.
func cell(n int, absent bool) string {
	if absent {
		return "–"
	}
	return Group(n)
}

// WriteGateGitHub writes the change as GitHub workflow commands: a notice with the totals, one
// on each of the tools that changed most (at its line, when known), and the verdict against the
// limit, an error when the listing grew past it.
func WriteGateGitHub(w io.Writer, g *Gate, o GateOptions) error {
	var b strings.Builder
	file := "file=" + ghProp.Replace(o.Source)
	summary := g.headline()
	if v := o.Verdict; v != nil && !v.Over {
		summary += "; " + v.Message
	}
	fmt.Fprintf(&b, "::notice %s,title=%s::%s\n", file, ghProp.Replace("workbench cost"), ghData.Replace(summary))
	for i, c := range g.Changes {
		if i == gateNotices {
			fmt.Fprintf(&b, "workbench cost: %d more changed tools are not annotated (--format markdown lists them)\n", len(g.Changes)-i)
			break
		}
		props := file
		if o.Line != nil && c.Index >= 0 {
			if ln := o.Line(c.Index); ln > 0 {
				props += fmt.Sprintf(",line=%d", ln)
			}
		}
		props += ",title=" + ghProp.Replace(c.Status+" tool: "+c.Name)
		msg := fmt.Sprintf("%s: %s tokens (%s)", c.Name, Signed(c.Delta()), Percent(c.Delta(), c.Before))
		if c.Status == "grown" || c.Status == "shrunk" {
			msg = fmt.Sprintf("%s: from %s to %s tokens (%s, %s)", c.Name, Group(c.Before), Group(c.After), Signed(c.Delta()), Percent(c.Delta(), c.Before))
		}
		fmt.Fprintf(&b, "::notice %s::%s\n", props, ghData.Replace(msg))
	}
	if v := o.Verdict; v != nil && v.Over {
		fmt.Fprintf(&b, "::error %s,title=%s::%s\n", file, ghProp.Replace("workbench cost: over the limit"), ghData.Replace(v.Message))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
