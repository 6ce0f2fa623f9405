package export

import (
	"bytes"
	"fmt"
	"strings"
)

// OverlapPair is one competing pair of the overlap map, as the review shows it.
type OverlapPair struct {
	A, B string
	// Strength is the pair's strength, a share from 0 to 1 (selection.Pair.Strength).
	Strength float64
	// SharedWords are the heaviest words the two share; Lost and Close count the tasks lost or
	// close between them.
	SharedWords []string
	Lost, Close int
	Advice      string
}

// ToolDamage is one tool's damage test as the review shows it: of its Tasks, the ones it wins
// intact and with its description blanked, and what carries its selection ("description",
// "name" or "none", as selection.ToolDamage.CarriedBy).
type ToolDamage struct {
	Name                string
	Tasks, Won, Blanked int
	CarriedBy           string
}

// OrderBias is the ranker's order bias summed up: of the ranked tasks, those tied at the top
// and those whose verdict a rotation of the tool order changes, and the expected tool's rate of
// winning over a random rotation against the rate the reference counts right.
type OrderBias struct {
	Tied, Flips                 int
	ExpectedRate, ReferenceRate float64
}

// reviewOverlapTop is how many pairs the review's overlap section lists.
const reviewOverlapTop = 10

// writeExtras writes the review's sections on the overlap map, the damage test and the order
// bias of the current listing, each beside the baseline's, when the engine gave them.
func writeExtras(b *bytes.Buffer, r engineAnswers) {
	if r.cur == nil {
		return
	}
	writeOverlap(b, r.old, r.cur)
	writeDamage(b, r.old, r.cur)
	writeOrderBias(b, r.old, r.cur)
}

func writeOverlap(b *bytes.Buffer, old, cur *Analysis) {
	if cur.Overlap == nil {
		return
	}
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	ps := cur.Overlap
	if len(ps) > reviewOverlapTop {
		ps = ps[:reviewOverlapTop]
	}
	p("\n## Competing tools\n\n")
	if len(ps) == 0 {
		p("No two tools compete: no tool scores on another's words.\n")
		return
	}
	p("The overlap map's %d strongest of %d competing pairs. Strength is the largest of three shares from 0 to 1: "+
		"how well each tool takes the other's own description, the weight of the words they share, and the tasks lost or close between them. "+
		"Baseline is the same pair's strength in the baseline (by name; none: not a competing pair there).\n\n", len(ps), cur.OverlapPairs)
	before := map[[2]string]float64{}
	for _, q := range old.Overlap {
		before[[2]string{q.A, q.B}], before[[2]string{q.B, q.A}] = q.Strength, q.Strength
	}
	p("| Tools | Strength | Baseline | Shared words | Tasks lost, close | What to do |\n|---|---:|---:|---|---:|---|\n")
	for _, q := range ps {
		base := "none"
		if s, ok := before[[2]string{q.A, q.B}]; ok {
			base = fmt.Sprintf("%.2f", s)
		}
		words := make([]string, len(q.SharedWords))
		for i, w := range q.SharedWords {
			words[i] = mdCode(w)
		}
		p("| %s, %s | %.2f | %s | %s | %d, %d | %s |\n", mdCell(mdCode(q.A)), mdCell(mdCode(q.B)), q.Strength, base,
			mdCell(strings.Join(words, " ")), q.Lost, q.Close, mdCell(mdText(q.Advice)))
	}
}

// damageCarrier is how the review says what carries a tool's selection, in a sentence and in a
// table cell.
var (
	damageCarrier = map[string]string{"description": "its description", "name": "its name alone", "none": "nothing (wins none of its tasks)"}
	damageCell    = map[string]string{"description": "description", "name": "name alone", "none": "nothing"}
)

func writeDamage(b *bytes.Buffer, old, cur *Analysis) {
	if cur.Damage == nil {
		return
	}
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("\n## Damage test\n\n")
	if len(cur.Damage) == 0 {
		p("No task expects a tool of the current listing.\n")
		return
	}
	groups := map[string][]string{}
	for _, d := range cur.Damage {
		groups[d.CarriedBy] = append(groups[d.CarriedBy], mdCode(d.Name))
	}
	p("Each tool some task expects, with its description blanked and its tasks ranked again: a tool that still wins every task it won is carried by its name alone (its name, title and parameters), " +
		"and its description is decoration; say in it what its tasks ask that its name does not.\n\n")
	for _, k := range []string{"name", "description", "none"} {
		if len(groups[k]) > 0 {
			p("- Carried by %s: %s.\n", damageCarrier[k], strings.Join(groups[k], ", "))
		}
	}
	before := map[string]ToolDamage{}
	for _, d := range old.Damage {
		before[d.Name] = d
	}
	p("\n| Tool | Tasks | Won | Won blanked | Carried by | Baseline |\n|---|---:|---:|---:|---|---|\n")
	for _, d := range cur.Damage {
		base := "not tested"
		if o, ok := before[d.Name]; ok {
			base = fmt.Sprintf("%s (won %d of %d, blanked %d)", damageCell[o.CarriedBy], o.Won, o.Tasks, o.Blanked)
		}
		p("| %s | %d | %d | %d | %s | %s |\n", mdCell(mdCode(d.Name)), d.Tasks, d.Won, d.Blanked, damageCell[d.CarriedBy], base)
	}
}

func writeOrderBias(b *bytes.Buffer, old, cur *Analysis) {
	if cur.OrderBias == nil || old.OrderBias == nil {
		return
	}
	o, c := old.OrderBias, cur.OrderBias
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("\n## Order bias\n\nThe ranker's verdicts under every rotation of the tool order, an exact tie at the top going to the tool listed first, as a model that prefers earlier tools would break it.\n\n")
	p("| | Baseline | Current | Change |\n|---|---:|---:|---|\n")
	p("| Tasks tied at the top | %d | %d | %s |\n", o.Tied, c.Tied, signed(c.Tied-o.Tied))
	p("| Verdicts the order decides | %d | %d | %s |\n", o.Flips, c.Flips, signed(c.Flips-o.Flips))
	p("| Expected tool wins, random order | %.1f%% | %.1f%% | |\n", 100*o.ExpectedRate, 100*c.ExpectedRate)
	p("| Right as the reference counts | %.1f%% | %.1f%% | |\n", 100*o.ReferenceRate, 100*c.ReferenceRate)
}
