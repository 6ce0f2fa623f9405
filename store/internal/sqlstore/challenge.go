// The store.Challenges role. CONTRACT STUB: the store helper replaces this file.

package sqlstore

import (
	"context"
	"time"

	"github.com/tool-workbench/workbench/store"
)

func notYet(op string) error {
	return store.Errorf(store.Internal, op, "challenges are not stored yet")
}

// CreateChallenge implements store.Challenges.
func (s *DB) CreateChallenge(ctx context.Context, c store.NewChallenge) (store.Challenge, error) {
	return store.Challenge{}, notYet("create challenge")
}

// Challenge implements store.Challenges.
func (s *DB) Challenge(ctx context.Context, id string) (store.Challenge, error) {
	return store.Challenge{}, notYet("read challenge")
}

// ChallengeByCode implements store.Challenges.
func (s *DB) ChallengeByCode(ctx context.Context, code string) (store.Challenge, error) {
	return store.Challenge{}, notYet("read challenge")
}

// ChallengesOf implements store.Challenges.
func (s *DB) ChallengesOf(ctx context.Context, workspace string) ([]store.Challenge, error) {
	return nil, notYet("list challenges")
}

// SetChallengeState implements store.Challenges.
func (s *DB) SetChallengeState(ctx context.Context, id string, state store.ChallengeState, now time.Time) (store.Challenge, error) {
	return store.Challenge{}, notYet("set challenge state")
}

// AddParticipant implements store.Challenges.
func (s *DB) AddParticipant(ctx context.Context, p store.NewParticipant) (store.Participant, error) {
	return store.Participant{}, notYet("add participant")
}

// Participants implements store.Challenges.
func (s *DB) Participants(ctx context.Context, challenge string) ([]store.Participant, error) {
	return nil, notYet("list participants")
}

// ParticipantOf implements store.Challenges.
func (s *DB) ParticipantOf(ctx context.Context, workspace string) (store.Participant, error) {
	return store.Participant{}, store.Errorf(store.NotFound, "read participant", "workspace %s is nobody's copy", workspace)
}

// PutScore implements store.Challenges.
func (s *DB) PutScore(ctx context.Context, u store.ScoreUpdate) (store.Participant, error) {
	return store.Participant{}, notYet("store score")
}
