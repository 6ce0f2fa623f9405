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
	// Scripts are further scripts' content-hashed URLs: the marks of hidden characters
	// (marks.js) and the findings panel that follows the selected tool (findings.js).
	Scripts []string
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
	// Fetch is the "Fetch from server" form; FetchProblem a fetch that failed.
	Fetch        FetchForm
	FetchProblem *FetchProblem
}

// ToolRow is one tool in the list.
type ToolRow struct {
	Index    int
	Shape    int // the listing's tools shape the row was rendered at (see toolOp)
	Name     string
	Errors   int
	Warnings int
	Tokens   int
	Bytes    int
}

// ToolRows is the tool list: the listing's first tools, and how many it holds. A listing may
// hold 20,000 tools; the page lists a bounded number of them (see web's maxToolRows).
type ToolRows struct {
	Rows  []ToolRow
	Total int
	// The search the list shows (issue 21): Query as typed, Matches the tools it matches (Total
	// without one), Before the matches above the listed rows (a window further down the list),
	// Shape the tools' shape the selected tool's toolbar acts at.
	Query   string
	Matches int
	Before  int
	Shape   int
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
	Shape        Shape // of the listing the form was rendered from (see editExpr)
	Gen          int   // changes whenever the form must be replaced rather than left alone
	Name         string
	Title        string
	Description  string
	Words        int
	Tokens       int
	Params       []ParamRow
	ParamCount   int    // the parameters inputSchema holds; Params may list fewer
	ParamsNote   string // why the table is read-only, when the schema has no properties object
	InputSchema  string
	OutputSchema string
	InputMsg     SchemaMsg
	OutputMsg    SchemaMsg
	Annotations  []AnnotationRow
	Problem      string // an edit that could not be applied
}

// Shape is where a listing's tools and parameters are, as versions that move when one is added,
// removed or moved (store.Workspace.ToolsShape, and ParamsShapes of the edited tool).
type Shape struct{ Tools, Params int }

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
	Pointer  string // the JSON pointer of what the finding is about, within the listing
	N        int    // its place among its tool's findings (the Review panel's Comment action)

	Fixes []FixButton // its repairs (fix.templ)
}

// FindingGroup holds one tool's findings, or the listing-wide ones (Tool -1).
type FindingGroup struct {
	Tool  int
	Shape int // the tools' shape Tool was found at (see selectExpr)
	Title string
	Items []FindingItem
	More  int // findings of this group left out of Items

	Safe FixSet // the tool's safe repairs, for its "Fix all safe"
}

// Findings is the findings panel.
type Findings struct {
	WS       string
	Groups   []FindingGroup
	Errors   int
	Warnings int
	Infos    int
	// Hidden is how many findings the panel leaves out (the groups' More included), and
	// HiddenTools how many tools they are of (not counting the listing as a whole).
	Hidden      int
	HiddenTools int
	// Profile is the workspace's profile ("" for none), which the panel's selector shows.
	Profile string
	// Safe is the listing's safe repairs, for the panel's "Fix all safe".
	Safe FixSet
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
	Status   string // clear, ambiguous, wrong, rejected, missing, no-words, none, none-risk
	Winner   string
	Expected string // "" when no tool should be called
	// Answers are a task's right tools when it has several; Reject, the tools it must not pick.
	Answers []string
	Reject  []string
	Margin  float64
	Top     []WhyTool
}

// TaskRow is one task of the task file.
type TaskRow struct {
	Index   int
	Gen     int // the version the row was rendered at (see taskExpr)
	Task    string
	Expect  string
	NoTool  bool
	Missing bool // Expect names no tool of the listing
	// Typed: the expected tool is a text field with the table's suggestions, not a select (the
	// listing has too many tools to list in every row).
	Typed   bool
	Verdict Verdict
}

// Tasks is the task panel.
type Tasks struct {
	WS        string
	Gen       int // the version the table was rendered at (see taskExpr)
	Rows      []TaskRow
	Total     int      // tasks in the file; Rows may list fewer
	ToolNames []string // the selects' options, or the suggestions of typed fields (see TaskRow.Typed)
	Clear     int
	Ambiguous int
	Wrong     int
	Problem   string
	Formats   []TaskFormat  // the import form's format choices besides "detect"
	Imported  *TaskImported // what the import just made of another tool's task file
	Export    TaskExport    // the export's format choice and download (the workbench's own at first)
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
	Tools    ToolRows
	Selected int
	Editor   *Editor
	Findings Findings
	Cost     Cost
	Tasks    Tasks
	Damage   Damage // the damage test under the task table
	Server   ServerPanel
	// Presence is who is on the workspace (the History issue's live presence).
	Presence []PresenceRow
	// Panel is the result panel the page opens on ("findings" when empty): a task import's
	// page opens on its tasks.
	Panel string
	// Challenge is the workshop bar, when the workspace is a participant's copy (else nil).
	Challenge *ChallengeBar
}

// FetchForm is the "Fetch from server" form, on the start page and in a workspace. It never
// carries a bearer token or headers: those are typed for one request and not shown again.
type FetchForm struct {
	URL        string
	Transport  string // streamable, sse or stdio
	Command    string // the stdio command line, when stdio is allowed
	AllowStdio bool
	// StdioToken is this server process's secret that a stdio launch must carry, so that only
	// its own page can launch a command (a rebinding or cross-site page cannot read it). It is
	// never kept with the workspace.
	StdioToken string `json:"-"`
	// QueryDropped says URL lost its query when it was kept (a query may hold a key).
	QueryDropped bool
}

// FetchProblem is a fetch that failed: what went wrong and what would work.
type FetchProblem struct {
	Kind    string // remote.ErrorKind
	Message string
	Hint    string
}

// ChangeRow is one difference between two listings.
type ChangeRow struct {
	Kind    string // added, removed, renamed, moved, description, inputSchema, annotation, …
	Tool    string
	OldName string
	Path    string
	Old     string // the old value, shortened; "" when absent
	New     string
	HasOld  bool
	HasNew  bool
}

// ChangeCount is how many changes of one kind.
type ChangeCount struct {
	Kind string
	N    int
}

// HashRow is one tool's content hash in the newly fetched listing.
type HashRow struct {
	Tool    string
	Hash    string // "sha256:…"
	Short   string // the first hex digits, for display
	Changed bool   // the tool differs from (or is absent in) the compared listing
}

// ChangeSet is what changed between two listings.
type ChangeSet struct {
	Against string // "the previous revision", "the baseline"
	Changed bool
	Counts  []ChangeCount
	Rows    []ChangeRow
	More    int // changes left out of Rows
	Hashes  []HashRow
	// HashesMore counts the tools whose hashes Hashes leaves out (past its bound).
	HashesMore int
}

// FetchReport describes the last fetch of a workspace and what it changed.
type FetchReport struct {
	Endpoint  string
	Transport string
	Server    string // the server's name
	Title     string
	Version   string
	Protocol  string
	FetchedAt string // RFC 3339, UTC
	Tools     int
	Pages     int
	Refetched bool // a re-fetch into the workspace (the change sets are filled)
	Previous  ChangeSet
	Baseline  ChangeSet
	Unchanged bool // a re-fetch that changed nothing, so no revision was added
}

// ServerPanel is the workspace's "Server" panel: the fetch form, the last fetch, and the change
// report of the last re-fetch.
type ServerPanel struct {
	WS      string
	Form    FetchForm
	Report  *FetchReport // nil: never fetched
	Problem *FetchProblem
}

// GoNote is one kind of difference between the exported Go server's answer and the listing.
type GoNote struct {
	Kind    string
	Summary string
	Tools   []string
	More    int
	Example string
}

// ExportNotes are the Go export's warnings (or the problems that stop it) for the current
// revision.
type ExportNotes struct {
	Notes    []GoNote
	Problems []string
	Error    string
}
