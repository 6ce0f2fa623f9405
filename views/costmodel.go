package views

import (
	"fmt"
	"strconv"
	"strings"
)

// Cost is the Cost tab's region: what the listing costs with one tokenizer and one rendering
// (the page's choice), with the figures `workbench cost` reports for them.
type Cost struct {
	Tokenizer string
	Render    string
	// Estimate is set when the rendering's tokens are an estimate (openai, anthropic); Source
	// says where the rendering and its constants come from, Model whose constants it used.
	Estimate       bool
	Source         string
	Model          string
	TotalTokens    int
	TotalBytes     int
	BaselineTokens int
	BaselineBytes  int
	// OverheadTokens and OverheadBytes are the rendering's frame: envelope, separators, fixed
	// tokens (the CLI's "frame and overhead").
	OverheadTokens int
	OverheadBytes  int
	Window         int     // context window in tokens (0: none chosen)
	Share          float64 // percent of Window
	// Parts are the listing's parts, each summed over its tools (the CLI's per-tool parts
	// added up), in the CLI's order.
	Parts      []CostPart
	Bars       []CostBar
	Top        []CostBar // the dearest tools with their parts, dearest first
	Cheapest   []CostBar // the CLI's cheapest tools (name and tokens), cheapest first
	MoreTools  int       // tools left out of Bars
	MoreTokens int       // their tokens together
	// Options are the choices the tab offers and the server's defaults.
	Options CostOptions

	// OneText is set when the rendering is one text and TotalTokens its exact count; Boundary
	// is then the tokens that form across the boundaries between tools and frame, which the
	// tools' figures (their syntax part) hold.
	OneText  bool
	Boundary int
}

// CostPart is what one part (name, description, schema, ...) costs.
type CostPart struct {
	Name   string
	Tokens int
	Bytes  int
	Share  float64 // percent of the listing's tokens
}

// CostBar is one tool's share of the listing's cost, drawn as stacked segments by part.
type CostBar struct {
	Index  int
	Name   string
	Tokens int
	Bytes  int
	Share  float64 // percent of the context window (0: none chosen)
	Width  float64 // 0..100, relative to the largest tool
	Segs   []CostSeg
	Parts  []CostPart
}

// CostSeg is one part's segment of a tool's bar, in the bar's 0..100 units.
type CostSeg struct {
	Part string
	X, W float64
}

// CostOptions are the choices the Cost tab offers, as `workbench cost` does, and the server's
// defaults (what a page counts with before it chooses).
type CostOptions struct {
	Tokenizers []string
	Renders    []CostRendering
	Windows    []int // context window presets
	// The models whose constants the openai and anthropic estimates offer, and Anthropic's
	// tool_choice values.
	OpenAIModels    []string
	AnthropicModels []string
	ToolChoices     []string
	Tokenizer       string
	Render          string
	Window          int
}

// CostRendering is one rendering the Cost tab offers.
type CostRendering struct {
	Name    string
	Summary string
}

// partClass is the CSS class that colours a part ("output schema" → "part-output-schema").
func partClass(name string) string { return "part-" + strings.ReplaceAll(name, " ", "-") }

// MaxCostWindow bounds the context window a page may choose (10 million tokens).
const MaxCostWindow = 10_000_000

// costSignals are the page's cost signals with the server's defaults.
func costSignals(o CostOptions) string {
	return fmt.Sprintf("{costtok: '%s', costrender: '%s', costwin: %d, costmodel: '', costchoice: ''}", o.Tokenizer, o.Render, o.Window)
}

// costGet asks for the Cost region counted with the page's choice (its signals go along).
func costGet(ws string) string { return fmt.Sprintf("@get('%s')", wsURL(ws, "cost")) }

// costReportHref is the download link of the report in format, with the page's choice.
func costReportHref(ws, format string) string {
	return fmt.Sprintf("'%s?format=%s&tokenizer=' + encodeURIComponent($costtok) + '&render=' + encodeURIComponent($costrender) + '&context=' + Number($costwin || 0) + '&model=' + encodeURIComponent($costmodel) + '&tool-choice=' + encodeURIComponent($costchoice)",
		wsURL(ws, "cost/report"), format)
}

// kTokens names a window size briefly: 8192 is "8k", 1000000 "1M".
func kTokens(n int) string {
	if n >= 1_000_000 && n%1_000_000 == 0 {
		return strconv.Itoa(n/1_000_000) + "M"
	}
	return strconv.Itoa(n/1000) + "k"
}

// modelNote names the model whose constants an estimate used.
func modelNote(model string) string {
	if model == "" {
		return ""
	}
	return " (constants of " + model + ")"
}

// partAbbr is a part's short name, for the narrow columns of the dearest tools' table.
func partAbbr(name string) string {
	switch name {
	case "description":
		return "desc."
	case "annotations":
		return "annot."
	case "output schema":
		return "output"
	case "other fields":
		return "other"
	}
	return name
}

// barTitle gives a tool's bytes and, with a window, its share of it (the CLI's share column).
func barTitle(b CostBar, window int) string {
	t := itoa(b.Bytes) + " bytes"
	if window > 0 {
		t += "; " + f2(b.Share) + "% of the context window"
	}
	return t
}
