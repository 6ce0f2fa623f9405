package views

import "fmt"

// Overlap is the Overlap tab: the heat map of which tools compete (selection.OverlapMap), with
// its geometry worked out by the server, and the strongest pairs with what to do about them.
// Every name and explanation is text; ids and Datastar expressions hold only indices.
type Overlap struct {
	WS      string
	Shape   int // the tools' shape the indices belong to (see selectExpr)
	Version int
	Tools   int
	Note    string // what the map shows (every tool, or the strongest clusters)
	Side    int    // the SVG's width and height, px
	Labels  []OverlapLabel
	Cells   []OverlapCell
	Pairs   []OverlapPairRow
	Total   int // competing pairs in the map
}

// OverlapLabel is a tool's name on both axes, at Pos px from the map's corner.
type OverlapLabel struct {
	Index int
	Name  string
	Pos   int
}

// OverlapCell is one coloured cell: tool Row (the editor's) against tool Col (marked in the list).
type OverlapCell struct {
	Row, Col int
	X, Y     int
	Opacity  string
	Title    string
}

// OverlapPairRow is one of the strongest pairs.
type OverlapPairRow struct {
	I, J     int
	A, B     string
	Strength string
	Shared   string
	Lost     int
	Advice   string
}

// Damage is the damage test in the Tasks tab: for each tool some task expects, how many of its
// tasks it still wins intact and with its description blanked, made generic, truncated and
// without the words its tasks share with it, and what carries it.
type Damage struct {
	WS      string
	Shape   int
	Kinds   []string
	Rows    []DamageRow
	Counts  [3]int // carried by description, by name alone, by nothing
	Present bool   // tasks exist
}

// DamageRow is one tool's line.
type DamageRow struct {
	Index   int
	Name    string
	Tasks   int
	Intact  int
	After   []int // tasks won under each kind
	Lost    string
	Carrier string // "description", "name" or "none"
	Label   string
}

// overlapPick selects tool i in the editor and marks tool j in the list ($pair).
func overlapPick(ws string, i, j, g int) string {
	return fmt.Sprintf("$tool = %d; $pair = %d; @post('%s?focus=&g=%d'); document.getElementById('editor')?.scrollIntoView({block: 'nearest'})", i, j, wsURL(ws, "select"), g)
}

// overlapSwap edits the marked tool instead, marking the one that was edited.
func overlapSwap(ws string, g int) string {
	return fmt.Sprintf("$pair = [$tool, $tool = $pair][0]; @post('%s?focus=&g=%d')", wsURL(ws, "select"), g)
}

func overlapTabExpr(ws string) string {
	return fmt.Sprintf("$panel = 'overlap'; @get('%s')", wsURL(ws, "overlap"))
}

// The heat map's geometry: px per cell and for the names.
const (
	overlapCell   = 8
	overlapLabelW = 160
)

// OverlapGeometry gives the server the map's sizes: px per cell and px for the names.
func OverlapGeometry() (cell, label int) { return overlapCell, overlapLabelW }

// kindLabel is the heading of the k-th damage column (a card's label on a narrow pane): one of
// the engine's damage kinds, never text from the listing.
func kindLabel(kinds []string, k int) string {
	if k < len(kinds) {
		return kinds[k]
	}
	return ""
}
