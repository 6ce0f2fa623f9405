package web

// The Overlap tab and the damage test (issue 16). The heat map is computed and rendered when the
// tab opens (GET overlap) and on its Refresh button, not on every keystroke: on the GitHub
// listing it is about 0.5 MB of SVG with a title per cell, too much to send to every page after
// each edit, while the computation itself stays incremental (analysis.Engine.OverlapKeyed). The
// damage table is small and rides the live patches with the other result regions.

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/views"
)

// Bounds of the Overlap panel: the names on the axes and in the cells' titles are cut, the
// pairs listed and the cells drawn are bounded (the engine's MaxSVGTools bounds the tools).
const (
	overlapNameMax  = 32
	overlapTitleMax = 400
	overlapTopPairs = 15
	overlapMaxCells = 4000
)

func (s *Server) overlapPanel(c echo.Context) error {
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	st, err := s.currentCtx(ctx, ws)
	if err != nil {
		return err
	}
	eng, err := s.engineFor(st.profile)
	if err != nil {
		return err
	}
	m, err := eng.OverlapKeyed(ctx, ws.ID, ws.Listing, st.res.Verdicts)
	if err != nil {
		return fmt.Errorf("overlap map of workspace %s: %w", ws.ID, err)
	}
	sse := newSSE(c)
	_ = sse.PatchElementTempl(views.OverlapRegion(overlapModel(ws, m)))
	return nil
}

// overlapModel lays the map out: the tools the engine's SVG would show (every one up to
// selection.MaxSVGTools, else those of the strongest pairs), in its cluster order, a cell on
// each side of the diagonal for every competing pair among them.
func overlapModel(ws Workspace, m *selection.OverlapMap) views.Overlap {
	shown, note := m.SVGTools()
	cell, label := views.OverlapGeometry()
	o := views.Overlap{WS: ws.ID, Shape: ws.ToolsShape, Version: ws.Version, Tools: len(m.Names), Note: note,
		Side: label + cell*len(shown) + 4, Total: len(m.Pairs)}
	at := make(map[int]int, len(shown))
	for k, i := range shown {
		at[i] = k
		o.Labels = append(o.Labels, views.OverlapLabel{Index: i, Name: clipRunes(m.Names[i], overlapNameMax), Pos: label + cell*k})
	}
	for _, p := range m.Pairs {
		a, okA := at[p.I]
		b, okB := at[p.J]
		if !okA || !okB || p.Strength <= 0 {
			continue
		}
		if len(o.Cells)+2 > overlapMaxCells {
			o.Note += fmt.Sprintf(" The weakest pairs past %d cells are not drawn.", overlapMaxCells)
			break
		}
		title := clipRunes(m.CellTitle(p), overlapTitleMax)
		op := fmt.Sprintf("%.2f", 0.1+0.9*p.Strength)
		o.Cells = append(o.Cells,
			views.OverlapCell{Row: p.I, Col: p.J, X: label + cell*b, Y: label + cell*a, Opacity: op, Title: title},
			views.OverlapCell{Row: p.J, Col: p.I, X: label + cell*a, Y: label + cell*b, Opacity: op, Title: title})
	}
	for _, p := range m.Pairs[:min(len(m.Pairs), overlapTopPairs)] {
		var ws []string
		for _, w := range m.SharedWords(p.I, p.J, 5) {
			ws = append(ws, w.Word)
		}
		// Names come from the listing: clipped as the axis labels are, so a huge name is not sent
		// several times over.
		o.Pairs = append(o.Pairs, views.OverlapPairRow{I: p.I, J: p.J, A: clipRunes(m.Names[p.I], 64), B: clipRunes(m.Names[p.J], 64),
			Strength: fmt.Sprintf("%.2f", p.Strength), Shared: strings.Join(ws, ", "), Lost: len(p.Lost), Advice: clipRunes(m.Advice(p), 600)})
	}
	return o
}

// damageLabels are the badges of what carries a tool.
var damageLabels = map[string]string{
	selection.CarriedByDescription: "carried by its description",
	selection.CarriedByName:        "wins by name alone",
	selection.CarriedByNothing:     "wins none",
}

// damageModel is the damage table from the analysis (empty without tasks). It lists at most
// maxToolRows tools, the page's bound on tool rows.
func damageModel(ws Workspace, res *analysis.Result) views.Damage {
	d := views.Damage{WS: ws.ID, Shape: ws.ToolsShape, Kinds: selection.DamageKinds, Present: len(ws.Tasks) > 0}
	for k, t := range res.Damage {
		switch t.CarriedBy {
		case selection.CarriedByDescription:
			d.Counts[0]++
		case selection.CarriedByName:
			d.Counts[1]++
		default:
			d.Counts[2]++
		}
		if k >= maxToolRows {
			continue
		}
		r := views.DamageRow{Index: t.Tool, Name: t.Name, Tasks: t.Tasks, Intact: t.Base.Won, Lost: fmt.Sprintf("%.0f%%", 100*t.Lost),
			Carrier: t.CarriedBy, Label: damageLabels[t.CarriedBy]}
		for _, a := range t.After {
			r.After = append(r.After, a.Won)
		}
		d.Rows = append(d.Rows, r)
	}
	return d
}

// clipRunes cuts s to n runes, marking the cut.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
