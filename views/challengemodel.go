package views

// View models of the workshop pages (challenge_teach.templ, board.templ). The web layer fills
// them from package challenge; these hold text and numbers only.

// ChallengeForm is the teacher's form that makes a challenge from a workspace. Every field is
// kept as typed, so that a refusal shows the form again with nothing lost.
type ChallengeForm struct {
	Page   Page
	WS     string
	WSName string
	// Tools and Practice count the starting listing's tools and its practice tasks.
	Tools, Practice int

	Title  string
	Hidden string // the hidden task file as typed (or uploaded)
	Budget string // blank: the default
	// Tokenizer and Rendering are the budget's choice; Tokenizers and Renderings the offer.
	Tokenizer, Rendering   string
	Tokenizers, Renderings []string
	// Starts are the starting listing's tokens under each choice (shown for the one chosen).
	Starts []StartTokens
	// Errors, Promo and Instructions say which findings cost Points each.
	Errors, Promo, Instructions bool
	Points                      string
	Minutes                     string // the end, in minutes from now
	Problem                     string
	// ExampleHidden, when set, is the built-in workshop example's hidden task file: the form
	// offers a button that fills it in.
	ExampleHidden string
	Earlier       []ChallengeLink
}

// StartTokens is the starting listing's cost under one tokenizer and rendering, and the budget
// the service would set by default.
type StartTokens struct {
	Tokenizer, Rendering string
	Tokens, Default      int
}

// ChallengeLink is one of a workspace's earlier challenges.
type ChallengeLink struct {
	ID, Title, Code, State, Created string
}

// TeacherView is the teacher's page of a challenge: the join code for the projector, its state
// and controls, the leaderboard with every participant's copy a click away, and the heat map.
type TeacherView struct {
	Page      Page
	ID        string
	Title     string
	Workspace string // the workspace it was made from
	Code      string // the join code as shown (ABC-DEF)
	JoinURL   string
	State     ChallengeStateView
	Board     BoardTable
	Heat      HeatMap
}

// ChallengeStateView is the state region: what the room can do now and the teacher's buttons.
type ChallengeStateView struct {
	ID    string
	State string // open, frozen, revealed
	Ends  string // "" when there is no end
	Rule  string // the identity rule participants see
}

// BoardTable is the leaderboard, as the teacher's view and the projector show it.
type BoardTable struct {
	ID      string
	Final   bool // the final ranking (revealed)
	Teacher bool // links to each participant's copy
	Rows    []BoardRow
}

// BoardRow is one participant's line.
type BoardRow struct {
	Rank      int
	Name      string
	Score     int
	Scored    bool
	Clear     int
	Tasks     int
	Tokens    int
	Budget    int
	Over      bool
	Penalties int
	Since     string // "2 min ago"; "" when never improved
	// Tie says why this row is below one of the same score ("" when it is not).
	Tie       string
	Workspace string // the teacher's view only
}

// HeatMap is the hidden tasks by participant, the tasks most of the room loses first.
type HeatMap struct {
	Revealed bool
	Names    []string
	Rows     []HeatRow
	// More counts the participants left out of the columns (the map shows the first ones).
	More int
}

// HeatRow is one hidden task and each participant's verdict on it.
type HeatRow struct {
	Split  string
	Index  int
	Text   string
	Expect string // "" for no tool
	Won    int
	Of     int
	Cells  []HeatCell
}

// HeatCell is one participant's verdict on a task.
type HeatCell struct {
	Name   string
	Status string // won, half, lost, none (not scored)
	Picked string
}

// BoardPage is the projector's leaderboard. It holds nothing hidden.
type BoardPage struct {
	Page    Page
	ID      string
	Title   string
	Code    string // shown while open
	JoinURL string
	State   string
	Board   BoardTable
}
