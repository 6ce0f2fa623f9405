package store

import (
	"context"
	"encoding/json"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Challenges keeps workshop challenges: a teacher's challenge made from a workspace (its
// settings and hidden tasks, which the store keeps as the opaque document package challenge
// writes), the participants who joined it (each with a workspace of their own, a copy of the
// starting listing) and each participant's latest score.
//
// Every change sends an EventChallenge: to the challenge's own ID (Event.Workspace is then the
// challenge ID, which leaderboard pages subscribe to; Field names the participant a score or a
// join is about), and, for a score or a change of state, to the participant workspaces it
// concerns (their pages show the score and the state). Challenge IDs are made like workspace
// IDs, so the two never collide as subscription keys.
//
// Deleting the workspace a challenge was made from deletes the challenge and its participants'
// records (their workspaces stay: they are the participants' work); deleting a participant's
// workspace deletes that participant's record.
type Challenges interface {
	// CreateChallenge stores a new challenge in state ChallengeOpen with a new ID and a join
	// code (CodeLength characters of CodeAlphabet) that no other challenge holds.
	CreateChallenge(ctx context.Context, c NewChallenge) (Challenge, error)
	// Challenge returns a challenge by its ID; NotFound if none.
	Challenge(ctx context.Context, id string) (Challenge, error)
	// ChallengeByCode returns the challenge with a join code, read case-insensitively and
	// without surrounding spaces or a dash in the middle ("ab3-def" is "AB3DEF"); NotFound
	// if none (a malformed code is NotFound too: a guess learns nothing).
	ChallengeByCode(ctx context.Context, code string) (Challenge, error)
	// ChallengesOf lists the challenges made from a workspace, newest first.
	ChallengesOf(ctx context.Context, workspace string) ([]Challenge, error)
	// SetChallengeState moves a challenge to a state (any state to any other: a teacher may
	// unfreeze). Setting the state it is in changes nothing and sends no event.
	SetChallengeState(ctx context.Context, id string, state ChallengeState, now time.Time) (Challenge, error)

	// AddParticipant records a participant and the workspace that is their copy. A name
	// another participant of the challenge holds (compared by ParticipantNameKey) is a Conflict;
	// past MaxParticipants it is Invalid, with the limit in the message; a workspace that is
	// already a participant's is a Conflict.
	AddParticipant(ctx context.Context, p NewParticipant) (Participant, error)
	// Participants lists a challenge's participants in the order they joined, with their scores.
	Participants(ctx context.Context, challenge string) ([]Participant, error)
	// ParticipantOf returns the participant whose copy a workspace is; NotFound when the
	// workspace is nobody's copy (most workspaces).
	ParticipantOf(ctx context.Context, workspace string) (Participant, error)
	// PutScore stores a participant's live score (Final unset) or final score (Final set).
	// A live score for a Seq below the one stored is ignored (an older scoring finished
	// late): the stored participant is returned and no event is sent.
	PutScore(ctx context.Context, s ScoreUpdate) (Participant, error)
}

// ChallengeState is where a challenge is in its life.
type ChallengeState string

// The states of a challenge.
const (
	ChallengeOpen     ChallengeState = "open"     // participants join, edit and are scored live
	ChallengeFrozen   ChallengeState = "frozen"   // copies are read-only and scores stand still
	ChallengeRevealed ChallengeState = "revealed" // the final split has scored the final ranking
)

// Limits of a challenge.
const (
	MaxChallengeSettings = 4 << 20   // bytes of a challenge's settings document (hidden tasks included)
	MaxScore             = 256 << 10 // bytes of one stored score document
	MaxParticipants      = 500       // participants of one challenge
	MaxParticipantName   = 60        // characters of a participant's display name
	CodeLength           = 6         // characters of a join code
	// CodeAlphabet has no letters or digits that read alike on a projector (0/O, 1/I/L).
	CodeAlphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
)

// EventChallenge is sent when a challenge, its state, its participants or their scores change.
const EventChallenge EventKind = "challenge"

// NewChallenge is what CreateChallenge needs.
type NewChallenge struct {
	// Workspace is the teacher's workspace the challenge was made from.
	Workspace string
	Title     string
	// Owner and OwnerID are who made it (a display name, an author ID).
	Owner, OwnerID string
	// Settings are package challenge's document (its File, hidden tasks included): at most
	// MaxChallengeSettings bytes of JSON, stored and returned as they are.
	Settings json.RawMessage
	Now      time.Time
}

// Challenge is one stored challenge.
type Challenge struct {
	ID        string          `json:"id"`
	Code      string          `json:"code"`
	Workspace string          `json:"workspace"`
	Title     string          `json:"title"`
	Owner     string          `json:"owner"`
	OwnerID   string          `json:"ownerId,omitempty"`
	Settings  json.RawMessage `json:"settings"`
	State     ChallengeState  `json:"state"`
	Created   time.Time       `json:"created"`
	// Changed is when State last changed (Created until then).
	Changed time.Time `json:"changed"`
}

// NewParticipant is what AddParticipant needs.
type NewParticipant struct {
	Challenge string
	// Name is the display name (1 to MaxParticipantName characters, as CheckText allows).
	Name string
	// Workspace is the participant's copy; LinkID the share link that opens it for them.
	Workspace, LinkID string
	Now               time.Time
}

// Participant is one participant of a challenge and their latest scores.
type Participant struct {
	ID        string    `json:"id"`
	Challenge string    `json:"challenge"`
	Name      string    `json:"name"`
	Workspace string    `json:"workspace"`
	LinkID    string    `json:"linkId,omitempty"`
	Joined    time.Time `json:"joined"`
	// Seq is the workspace's edit sequence number the live score was computed at (0: not
	// scored yet); Live is that score, Scored when it was stored.
	Seq    int64           `json:"seq"`
	Live   json.RawMessage `json:"live,omitempty"`
	Scored time.Time       `json:"scored,omitzero"`
	// Final is the score on the final split, stored when the challenge is revealed.
	Final json.RawMessage `json:"final,omitempty"`
}

// ScoreUpdate is what PutScore needs.
type ScoreUpdate struct {
	Challenge, Participant string
	// Seq is the participant workspace's Seq the score was computed at.
	Seq int64
	// Score is package challenge's score document: at most MaxScore bytes of JSON.
	Score json.RawMessage
	// Final stores Score as the final score (regardless of Seq) instead of the live one.
	Final bool
	Now   time.Time
}

// ParticipantNameKey is what two participants' names are compared by: compatibility-normalised
// (a full-width "Ａｄａ" is "Ada"), case-folded, without invisible format characters (a
// zero-width space), with runs of spaces as one. Names that look alike on a leaderboard get
// one key. Stores compare by it, and so does whoever picks a free name before asking one.
func ParticipantNameKey(name string) string {
	s := cases.Fold().String(norm.NFKC.String(name))
	s = strings.Map(func(r rune) rune {
		if Invisible(r) {
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// Invisible reports whether r shows nothing where a name is drawn: a format character (a
// zero-width space, a soft hyphen, a bidirectional mark) or one of the blank letters fonts draw
// as space (the Hangul fillers, the braille blank). A name made different only by these reads
// like the other.
func Invisible(r rune) bool {
	switch r {
	case 0x115f, 0x1160, 0x3164, 0xffa0, 0x2800, 0x034f:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}
