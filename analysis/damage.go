package analysis

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/tool-workbench/workbench/selection"
)

// DamageReport is the damage test in a report (the JSON member "damage"): for each tool that
// some task expects, how its tasks fare when its description is spoiled (selection.DamageTest),
// and the tools that fail --min-drop.
type DamageReport struct {
	// Kinds are the damages in the order of each tool's "after".
	Kinds []string `json:"kinds"`
	// Generic is the sentence the generic damage puts in place of a description.
	Generic string                 `json:"generic"`
	Tools   []selection.ToolDamage `json:"tools"`
	// MinDrop is the share of its tasks each tool that wins any must lose when its description
	// is blanked (--min-drop), if asked; Failing names the tools that lose less.
	MinDrop *float64 `json:"minDrop,omitempty"`
	Failing []string `json:"failing"`
}

// NewDamageReport judges tools against minDrop (nil: no gate). A tool that wins none of its
// tasks intact is not judged: the ranking's verdicts already fail it.
func NewDamageReport(tools []selection.ToolDamage, minDrop *float64) *DamageReport {
	d := &DamageReport{Kinds: selection.DamageKinds, Generic: selection.GenericDescription, Tools: tools,
		MinDrop: minDrop, Failing: []string{}}
	if minDrop == nil {
		return d
	}
	for _, t := range tools {
		if t.CarriedBy != selection.CarriedByNothing && t.Lost < *minDrop {
			d.Failing = append(d.Failing, t.Name)
		}
	}
	return d
}

// AddDamage puts the damage test in the report; tools failing --min-drop fail the check.
func (r *Report) AddDamage(d *DamageReport) {
	r.Damage = d
	if len(d.Failing) > 0 {
		r.Failed = true
	}
}

// damageCarrier is how the text format says what carries a tool.
var damageCarrier = map[string]string{
	selection.CarriedByDescription: "its description",
	selection.CarriedByName:        "its name alone",
	selection.CarriedByNothing:     "nothing (wins none intact)",
}

// WriteDamageText writes the damage test as a table, a count line and a FAIL line for each
// tool below --min-drop.
func WriteDamageText(w io.Writer, d *DamageReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "damage test: %d tools expected by the tasks; each cell is the tasks still won, the mean place and the mean share of the winner's score, intact and with the description blanked, made generic, truncated to its first half, and without the words its tasks share with it\n", len(d.Tools))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "TOOL\tTASKS\tINTACT\tBLANK\tGENERIC\tTRUNCATE\tDROP\tLOST BLANK\tCARRIED BY\n")
	count := map[string]int{}
	for _, t := range d.Tools {
		count[t.CarriedBy]++
		fmt.Fprintf(tw, "%s\t%d\t%s", printable(t.Name), t.Tasks, damageCell(t.Base))
		for _, a := range t.After {
			fmt.Fprintf(tw, "\t%s", damageCell(a))
		}
		fmt.Fprintf(tw, "\t%.0f%%\t%s\n", 100*t.Lost, damageCarrier[t.CarriedBy])
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("writing the damage table: %w", err)
	}
	fmt.Fprintf(&b, "damage test: %d carried by their description, %d by name alone, %d win none of their tasks\n",
		count[selection.CarriedByDescription], count[selection.CarriedByName], count[selection.CarriedByNothing])
	if d.MinDrop != nil {
		lost := map[string]float64{}
		for _, t := range d.Tools {
			lost[t.Name] = t.Lost
		}
		for _, name := range d.Failing {
			fmt.Fprintf(&b, "FAIL damage:%s: blanking its description loses %.0f%% of its tasks, under --min-drop %.0f%%: its name, title and parameters win the rest; say in the description what its tasks ask that its name does not\n",
				printable(name), 100*lost[name], 100**d.MinDrop)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func damageCell(r selection.DamageResult) string {
	return fmt.Sprintf("%d %.1f %.2f", r.Won, r.MeanRank, r.MeanShare)
}

// printable quotes a name holding spaces or characters a terminal would not show as they are,
// so the table's columns stay aligned and nothing in a name acts on the terminal.
func printable(s string) string {
	if s == "" || strings.IndexFunc(s, func(r rune) bool { return !unicode.IsGraphic(r) || unicode.IsSpace(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}
