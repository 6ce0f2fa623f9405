package challenge

// CONTRACT: the signatures below are what package web and cmd/workbench call. The core helper
// fills in the bodies (and may add unexported fields and methods); changing a signature needs
// the lead's word.

import (
	"context"
	"errors"
	"time"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/workspace"
)

var errNotBuilt = errors.New("challenge: not built yet")

// Options configure a Service.
type Options struct {
	// Now is the clock (default time.Now).
	Now func() time.Time
	// MaxScoresPerSecond bounds the scorings of one participant (default 20): a burst of
	// edits is scored once it settles, never more often than this.
	MaxScoresPerSecond float64
}

// Service keeps challenges in a store and scores participants' copies as they change. Its
// methods are safe for concurrent use. Scoring is started lazily: any call that touches a
// challenge that is open makes sure its participants' copies are watched (a restart loses
// nothing: the next page that asks starts the watching again).
type Service struct {
	st  store.Store
	ws  *workspace.Service
	opt Options
}

// New returns the service over st, reading workspaces through ws.
func New(st store.Store, ws *workspace.Service, opt Options) *Service {
	return &Service{st: st, ws: ws, opt: opt}
}

// Draft is what a teacher's form gives to make a challenge; the service fills the starting
// tools and the practice tasks from the workspace's head.
type Draft struct {
	Title string
	// Hidden is a task file (JSON) of the hidden tasks. A task tagged "final" goes to the final
	// split and one tagged "live" to the live split; when no task carries either tag, the tasks
	// alternate (first live, second final, …). The tags are dropped once split.
	Hidden    []byte
	Budget    Budget // Tokens 0: the starting listing's tokens plus a quarter, rounded up to 10
	Penalties Penalties
	Window    Window
}

// Create makes a challenge from workspace from's head: its listing is the starting listing,
// its task file the practice tasks. A hidden task whose text is also a practice task is
// refused (it would not be hidden), as is a hidden task that names a tool the starting listing
// does not have. Errors that the teacher can mend are *Invalid.
func (s *Service) Create(ctx context.Context, from string, d Draft, who workspace.Author) (store.Challenge, error) {
	return store.Challenge{}, errNotBuilt
}

// Invalid is a draft or a challenge file that cannot be used; Msg says what is wrong and what
// would work.
type Invalid struct{ Msg string }

func (e *Invalid) Error() string { return e.Msg }

// Challenge is a stored challenge with its file read.
type Challenge struct {
	store.Challenge
	File *File
	// Start is the starting listing (the workspace's head when the challenge was made) and
	// Practice its practice tasks.
	Start    *listing.Listing
	Practice []selection.Task
}

// Get returns a challenge by ID (the teacher's view, the leaderboard).
func (s *Service) Get(ctx context.Context, id string) (*Challenge, error) { return nil, errNotBuilt }

// ByCode returns a challenge by its join code.
func (s *Service) ByCode(ctx context.Context, code string) (*Challenge, error) {
	return nil, errNotBuilt
}

// Of lists the challenges made from a workspace, newest first.
func (s *Service) Of(ctx context.Context, workspace string) ([]store.Challenge, error) {
	return nil, errNotBuilt
}

// Joined is a participant who has just joined (or come back): the copy to open and the edit
// share-link token that opens it, which the join page hands to the browser as cookies.
type Joined struct {
	Participant store.Participant
	Token       string
}

// Join gives a person a copy of the starting listing (with the practice tasks) and an edit
// share link to it. The name is cleaned as workspace titles are (workspace.Title) and must not
// be empty; a name taken in the challenge gets " (2)", " (3)", … Joining a challenge that is
// not open, or past store.MaxParticipants, is *Invalid with what to do.
func (s *Service) Join(ctx context.Context, c *Challenge, name string) (Joined, error) {
	return Joined{}, errNotBuilt
}

// Rejoin finds the participant whose copy the share-link token opens, when it is a copy of c:
// someone who left and came back gets their copy back. NotFound (store kind) otherwise.
func (s *Service) Rejoin(ctx context.Context, c *Challenge, token string) (store.Participant, error) {
	return store.Participant{}, errNotBuilt
}

// Locked says why a workspace may not be edited now ("" when it may): a participant's copy of
// a challenge that is frozen, revealed, not started or past its end. It is called on every
// edit of every workspace, so it answers from memory for workspaces it has seen.
func (s *Service) Locked(ctx context.Context, workspace string) string { return "" }

// Bar is what a participant's page shows above their listing.
type Bar struct {
	Challenge string // the challenge ID (the leaderboard's link)
	Title     string
	Name      string // the participant's display name
	State     store.ChallengeState
	// Locked is why the copy is read-only ("" when it is not).
	Locked string
	// Score is the live score (nil until the first scoring).
	Score *PublicResult
	// Places are the starting tools by place, for the identity rule.
	Places []string
	Rule   string
	Ends   time.Time // zero: no end
}

// BarFor returns the bar of a participant's copy; ok is false when the workspace is nobody's
// copy.
func (s *Service) BarFor(ctx context.Context, workspace string) (b Bar, ok bool, err error) {
	return Bar{}, false, nil
}

// Freeze makes every copy read-only and stops scoring; Unfreeze opens them again.
func (s *Service) Freeze(ctx context.Context, id string) error   { return errNotBuilt }
func (s *Service) Unfreeze(ctx context.Context, id string) error { return errNotBuilt }

// Reveal freezes the challenge if it is not, scores every participant's copy on the final
// split, stores the final scores and moves the challenge to revealed.
func (s *Service) Reveal(ctx context.Context, id string) error { return errNotBuilt }

// Row is one line of the leaderboard.
type Row struct {
	Rank        int
	Participant string // ID
	Name        string
	Workspace   string // for the teacher's view only
	Score       int
	Tokens      int
	Budget      int
	OverBudget  bool
	Penalties   int // points
	Clear       int
	Tasks       int
	// Reached is when the participant first reached the score they hold; Improved when their
	// score last went up (zero: never scored).
	Reached  time.Time
	Improved time.Time
	Scored   bool
}

// Board is the leaderboard: live scores while the challenge runs, the final ranking once it is
// revealed (Final set). Ties break by fewer tokens, then by who reached the score first.
type Board struct {
	Challenge string
	Title     string
	Code      string
	State     store.ChallengeState
	Final     bool
	Rows      []Row
	Ends      time.Time
}

// Board returns the leaderboard of a challenge.
func (s *Service) Board(ctx context.Context, id string) (Board, error) { return Board{}, errNotBuilt }

// Heat is the teacher's heat map: hidden tasks by participant. While the challenge runs it
// holds the live split; once revealed, both.
type Heat struct {
	Tasks []HeatTask
	// Names are the participants in leaderboard order; Cells[t][p] is task t for participant p.
	Participants []Row
	Cells        [][]Verdict
}

// HeatTask is one hidden task and how much of the room wins it.
type HeatTask struct {
	Split Split
	Index int
	Text  string
	// Expect is the starting tool's name it expects ("" for no tool).
	Expect string
	Won    int // participants who win it (ambiguous wins count)
}

// Heat returns the heat map of a challenge (teacher only: it holds the hidden tasks).
func (s *Service) Heat(ctx context.Context, id string) (Heat, error) { return Heat{}, errNotBuilt }

// Export writes a challenge's results: "csv" or "json" (rank, name, live and final scores,
// tokens, penalties, and each hidden task's verdict). Teacher only.
func (s *Service) Export(ctx context.Context, id, format string) ([]byte, error) {
	return nil, errNotBuilt
}

// Rescore scores a participant's copy now (tests and benchmarks; the watchers call the same).
func (s *Service) Rescore(ctx context.Context, workspace string) error { return errNotBuilt }
