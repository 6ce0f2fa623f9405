// Package views renders the workbench's pages and the regions that Datastar patches into them.
// Components take the view-model structs below and never reach into a store or an engine: the
// web package builds the models. Every region that a patch replaces has a stable id and a
// data-testid, so that patches morph in place and tests can find them.
//
// User text (names, descriptions, schemas, tasks) only ever appears as HTML-escaped content or
// as an escaped attribute value; expressions in data-on:* attributes are built from indexes and
// the workspace id alone.
package views

// Page is what the layout needs.
type Page struct {
	Title      string
	DatastarJS string // URL of the Datastar client
	CSS        string // content-hashed URL of the style sheet
	Script     string // content-hashed URL of the keyboard script
}

// Example is one built-in example offered on the home page.
type Example struct {
	ID, Title, Blurb string
}

// ParseProblem is a listing that could not be read, shown above the kept paste.
type ParseProblem struct {
	Message string
	Hint    string
	Line    int // 0 when there is no position
	Column  int
}

// Home is the start page.
type Home struct {
	Page     Page
	Examples []Example
	Problem  *ParseProblem
	Pasted   string // the text the person pasted, kept after a failure
	MaxBytes int
}

// ToolRow is one tool in the list.
type ToolRow struct {
	Index    int
	Name     string
	Errors   int
	Warnings int
	Tokens   int
	Bytes    int
}

// ParamRow is one parameter of the selected tool's inputSchema.
type ParamRow struct {
	Index       int
	Name        string
	Type        string
	Required    bool
	Description string
	Enum        string // comma-separated values
	Format      string
	Minimum     string
	Maximum     string
	Default     string // JSON text
}

// AnnotationRow is one behaviour hint as a three-state control.
type AnnotationRow struct {
	Key     string // readOnlyHint, …
	Label   string
	Value   string // "", "true" or "false"
	Default bool   // what a host assumes when unset
	Help    string
}

// Editor is the selected tool's form.
type Editor struct {
	WS           string
	Index        int
	Gen          int // changes whenever the form must be replaced rather than left alone
	Name         string
	Title        string
	Description  string
	Words        int
	Tokens       int
	Params       []ParamRow
	ParamsNote   string // why the table is read-only, when the schema has no properties object
	InputSchema  string
	OutputSchema string
	InputMsg     SchemaMsg
	OutputMsg    SchemaMsg
	Annotations  []AnnotationRow
	Problem      string // an edit that could not be applied
}

// SchemaMsg is the live message under a raw JSON schema field.
type SchemaMsg struct {
	Field  string // "input" or "output"
	OK     bool
	Text   string
	Line   int
	Column int
}

// FindingItem is one finding.
type FindingItem struct {
	Rule     string
	Severity string // error, warning, info
	Message  string
	DocURL   string
	Tool     int    // -1 for the listing as a whole
	Field    string // editor field id to focus, "" for none
}

// FindingGroup holds one tool's findings, or the listing-wide ones (Tool -1).
type FindingGroup struct {
	Tool  int
	Title string
	Items []FindingItem
}

// Findings is the findings panel.
type Findings struct {
	WS       string
	Groups   []FindingGroup
	Errors   int
	Warnings int
	Infos    int
}

// CostBar is one tool's share of the listing's cost.
type CostBar struct {
	Index  int
	Name   string
	Tokens int
	Bytes  int
	Width  float64 // 0..100, relative to the largest tool
}

// Cost is the cost panel.
type Cost struct {
	Tokenizer      string
	TotalTokens    int
	TotalBytes     int
	BaselineTokens int
	BaselineBytes  int
	Window         int     // context window in tokens
	Share          float64 // percent of Window
	Bars           []CostBar
}

// ScoredWord is one task word that counted for a tool.
type ScoredWord struct {
	Word   string
	Weight float64
	InName bool
}

// WhyTool is one of the top two tools of a task with the words that scored for it.
type WhyTool struct {
	Tool  string
	Score float64
	Words []ScoredWord
}

// Verdict is the ranker's verdict on one task.
type Verdict struct {
	Status   string // clear, ambiguous, wrong, missing, no-words, none-expected
	Winner   string
	Expected string // "" when no tool should be called
	Margin   float64
	Top      []WhyTool
}

// TaskRow is one task of the task file.
type TaskRow struct {
	Index   int
	Task    string
	Expect  string
	NoTool  bool
	Verdict Verdict
}

// Tasks is the task panel.
type Tasks struct {
	WS        string
	Gen       int
	Rows      []TaskRow
	ToolNames []string
	Clear     int
	Ambiguous int
	Wrong     int
	Problem   string
}

// Workspace is the whole workspace screen.
type Workspace struct {
	Page     Page
	ID       string
	PID      string // this page's id, for the live stream (server-made hex)
	Name     string
	Version  int
	CanUndo  bool
	CanRedo  bool
	Tools    []ToolRow
	Selected int
	Editor   *Editor
	Findings Findings
	Cost     Cost
	Tasks    Tasks
}
