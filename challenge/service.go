package challenge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/workspace"
)

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

	parsed parsedCache // settings read, by challenge ID
	locks  lockCache   // who is whose copy, and the states of challenges
	docs   docCache    // score documents decoded, for the leaderboards
	boards flights     // leaderboard reads in progress, shared
	w      watchers
}

// New returns the service over st, reading workspaces through ws.
func New(st store.Store, ws *workspace.Service, opt Options) *Service {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.MaxScoresPerSecond <= 0 {
		opt.MaxScoresPerSecond = 20
	}
	s := &Service{st: st, ws: ws, opt: opt}
	s.w.init()
	return s
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
	head, err := s.ws.Read(ctx, from)
	if err != nil {
		return store.Challenge{}, fmt.Errorf("create challenge: %w", err)
	}
	f, err := draftFile(ctx, head, d)
	if err != nil {
		return store.Challenge{}, err
	}
	doc, err := encodeSettings(f, head.Listing, head.Tasks)
	if err != nil {
		return store.Challenge{}, err
	}
	who = workspace.AuthorName(who)
	rec, err := s.st.CreateChallenge(ctx, store.NewChallenge{Workspace: from, Title: f.Title, Owner: who.Name, OwnerID: who.ID,
		Settings: doc, Now: s.opt.Now()})
	if err != nil {
		return store.Challenge{}, fmt.Errorf("create challenge: %w", err)
	}
	return rec, nil
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
func (s *Service) Get(ctx context.Context, id string) (*Challenge, error) {
	rec, err := s.st.Challenge(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("read challenge: %w", err)
	}
	return s.load(ctx, rec)
}

// load reads a stored challenge's settings (once per challenge), notes its state for Locked,
// and starts or stops watching its participants as its state says. An open challenge past its
// end is frozen first (nobody here followed it when its end came).
func (s *Service) load(ctx context.Context, rec store.Challenge) (*Challenge, error) {
	p, err := s.parsed.get(rec)
	if err != nil {
		return nil, err
	}
	c := &Challenge{Challenge: rec, File: p.file, Start: p.start, Practice: p.practice}
	if c.State == store.ChallengeOpen && ended(c, s.opt.Now()) {
		// Freeze reads the challenge again, frozen. When it fails, c is answered open: its
		// copies are locked by the end all the same, and the next read tries again.
		if err := s.Freeze(ctx, c.ID); err == nil {
			return s.Get(ctx, c.ID)
		}
	}
	s.locks.putChallenge(c, s.opt.Now())
	s.w.follow(s, c)
	return c, nil
}

// ByCode returns a challenge by its join code.
func (s *Service) ByCode(ctx context.Context, code string) (*Challenge, error) {
	rec, err := s.st.ChallengeByCode(ctx, code)
	if err != nil {
		return nil, fmt.Errorf("find challenge by code: %w", err)
	}
	return s.load(ctx, rec)
}

// Of lists the challenges made from a workspace, newest first.
func (s *Service) Of(ctx context.Context, workspace string) ([]store.Challenge, error) {
	cs, err := s.st.ChallengesOf(ctx, workspace)
	if err != nil {
		return nil, fmt.Errorf("list challenges: %w", err)
	}
	return cs, nil
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
	name, err := cleanName(name)
	if err != nil {
		return Joined{}, err
	}
	if why := joinRefusal(c, s.opt.Now()); why != "" {
		return Joined{}, &Invalid{Msg: why}
	}
	w, err := s.ws.Create(ctx, c.Title+" — "+name, c.Start, c.Practice, workspace.Author{Name: name}, "joined the challenge")
	if err != nil {
		return Joined{}, fmt.Errorf("join: %w", err)
	}
	j, err := s.enrol(ctx, c, name, w.ID)
	if err != nil {
		// A refused join leaves no workspace behind.
		if derr := s.st.DeleteWorkspace(context.WithoutCancel(ctx), w.ID); derr != nil {
			err = errors.Join(err, fmt.Errorf("join: delete the copy: %w", derr))
		}
		return Joined{}, err
	}
	s.locks.putCopy(w.ID, c.ID, s.opt.Now())
	s.w.joined(s, c, j.Participant)
	return j, nil
}

// enrol gives the copy ws its share link and records the participant under a name no other
// participant holds (name, or name (2), name (3), …).
func (s *Service) enrol(ctx context.Context, c *Challenge, name, ws string) (Joined, error) {
	link, err := s.st.CreateShareLink(ctx, store.NewShareLink{Workspace: ws, Capability: store.CanEdit, Author: name, Now: s.opt.Now()})
	if err != nil {
		return Joined{}, fmt.Errorf("join: share link: %w", err)
	}
	// Two people may take the same name at once: the store refuses the second, which tries
	// the next free name.
	for range 3 {
		ps, err := s.st.Participants(ctx, c.ID)
		if err != nil {
			return Joined{}, fmt.Errorf("join: %w", err)
		}
		if len(ps) >= store.MaxParticipants {
			return Joined{}, invalid("%q has its %d participants, as many as a challenge holds; ask the teacher to start a second challenge", c.Title, store.MaxParticipants)
		}
		p, err := s.st.AddParticipant(ctx, store.NewParticipant{Challenge: c.ID, Name: freeName(name, ps), Workspace: ws, LinkID: link.ID, Now: s.opt.Now()})
		switch store.KindOf(err) {
		case store.Conflict:
			continue
		case store.Invalid:
			return Joined{}, &Invalid{Msg: err.Error()}
		}
		if err != nil {
			return Joined{}, fmt.Errorf("join: %w", err)
		}
		return Joined{Participant: p, Token: link.Token}, nil
	}
	return Joined{}, invalid("the name %q is taken: choose another", name)
}

// joinRefusal says why nobody may join c now ("" when they may).
func joinRefusal(c *Challenge, now time.Time) string {
	switch {
	case c.State == store.ChallengeRevealed:
		return "This challenge is over: its results are revealed. Ask the teacher for the code of the next one."
	case ended(c, now):
		return fmt.Sprintf("This challenge ended at %s. Ask the teacher for the code of the next one.", c.File.Window.End.Format(timeFormat))
	case c.State == store.ChallengeFrozen:
		return "The teacher has paused this challenge; ask them to unfreeze it, then join again."
	}
	return ""
}

// cleanName cleans a display name as workspace titles are cleaned, with runs of spaces made
// one, within store.MaxParticipantName.
func cleanName(name string) (string, error) {
	if strings.TrimSpace(name) == "" {
		return "", invalid("give a display name: the leaderboard shows it")
	}
	// Characters that show nothing are dropped: "Ada" with a zero-width space is "Ada".
	visible := strings.Map(func(r rune) rune {
		if store.Invisible(r) {
			return -1
		}
		return r
	}, name)
	n := ""
	if strings.TrimSpace(visible) != "" {
		n = strings.Join(strings.Fields(workspace.Title(visible)), " ")
	}
	if n == "" {
		return "", invalid("give a display name made of letters or digits: the leaderboard shows it")
	}
	return clipTo(n, store.MaxParticipantName), nil
}

// freeName is name, or name (2), name (3), … whichever no participant of ps holds (names are
// compared as the store compares them: store.ParticipantNameKey), within store.MaxParticipantName.
func freeName(name string, ps []store.Participant) string {
	taken := make(map[string]bool, len(ps))
	for _, p := range ps {
		taken[store.ParticipantNameKey(p.Name)] = true
	}
	try := name
	for k := 2; taken[store.ParticipantNameKey(try)]; k++ {
		suffix := fmt.Sprintf(" (%d)", k)
		try = clipTo(name, store.MaxParticipantName-utf8.RuneCountInString(suffix)) + suffix
	}
	return try
}

// Rejoin finds the participant whose copy the share-link token opens, when it is a copy of c:
// someone who left and came back gets their copy back. NotFound (store kind) otherwise.
func (s *Service) Rejoin(ctx context.Context, c *Challenge, token string) (store.Participant, error) {
	notFound := store.Errorf(store.NotFound, "rejoin", "this browser holds no copy of the challenge; join with a name")
	link, err := s.st.ShareLink(ctx, token)
	switch store.KindOf(err) {
	case store.NotFound, store.Forbidden, store.Invalid:
		return store.Participant{}, notFound
	}
	if err != nil {
		return store.Participant{}, fmt.Errorf("rejoin: %w", err)
	}
	p, err := s.st.ParticipantOf(ctx, link.Workspace)
	if store.KindOf(err) == store.NotFound {
		return store.Participant{}, notFound
	}
	if err != nil {
		return store.Participant{}, fmt.Errorf("rejoin: %w", err)
	}
	// Only the link the join gave opens the participant's seat: a view link to the copy does
	// not.
	if p.Challenge != c.ID || p.LinkID != link.ID || link.Capability != store.CanEdit {
		return store.Participant{}, notFound
	}
	return p, nil
}

// Locked says why a workspace may not be edited now ("" when it may): a participant's copy of
// a challenge that is frozen, revealed, not started or past its end, or a copy (or perhaps one)
// whose challenge the store could not read just now. It is called on every edit of every
// workspace, so it answers from memory for workspaces it has seen.
func (s *Service) Locked(ctx context.Context, workspace string) string {
	c, err := s.copyOf(ctx, workspace)
	switch {
	case err != nil:
		return unreadable
	case c == nil:
		return ""
	}
	return lockReason(c, s.opt.Now())
}

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
	if cid, known := s.locks.copyOf(workspace, s.opt.Now()); known && cid == "" {
		return Bar{}, false, nil
	}
	p, err := s.st.ParticipantOf(ctx, workspace)
	if store.KindOf(err) == store.NotFound {
		s.locks.putCopy(workspace, "", s.opt.Now())
		return Bar{}, false, nil
	}
	if err != nil {
		return Bar{}, false, fmt.Errorf("challenge bar: %w", err)
	}
	s.locks.putCopy(workspace, p.Challenge, s.opt.Now())
	c, err := s.Get(ctx, p.Challenge)
	if err != nil {
		return Bar{}, false, err
	}
	b = Bar{Challenge: c.ID, Title: c.Title, Name: p.Name, State: c.State, Locked: lockReason(c, s.opt.Now()),
		Places: c.File.Tools, Rule: IdentityRule, Ends: c.File.Window.End}
	doc, err := decodeScore(p.Live)
	if err != nil {
		return Bar{}, false, err
	}
	if doc != nil {
		pub := doc.Public()
		b.Score = &pub
	}
	return b, true, nil
}

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
