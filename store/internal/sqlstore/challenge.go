// The store.Challenges role: workshop challenges, their participants and their scores.

package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tool-workbench/workbench/store"
)

const challengeCols = `id, code, workspace_id, title, owner, owner_id, settings, state, created_at, changed_at`

func scanChallenge(row interface{ Scan(...any) error }) (store.Challenge, error) {
	var c store.Challenge
	var settings, state string
	var created, changed int64
	if err := row.Scan(&c.ID, &c.Code, &c.Workspace, &c.Title, &c.Owner, &c.OwnerID, &settings, &state, &created, &changed); err != nil {
		return c, err
	}
	c.Settings, c.State = json.RawMessage(settings), store.ChallengeState(state)
	c.Created, c.Changed = store.FromMicros(created), store.FromMicros(changed)
	return c, nil
}

const participantCols = `id, challenge_id, name, workspace_id, link_id, joined_at, seq, live, scored_at, final`

func scanParticipant(row interface{ Scan(...any) error }) (store.Participant, error) {
	var p store.Participant
	var live, final sql.NullString
	var joined, scored int64
	if err := row.Scan(&p.ID, &p.Challenge, &p.Name, &p.Workspace, &p.LinkID, &joined, &p.Seq, &live, &scored, &final); err != nil {
		return p, err
	}
	p.Joined = store.FromMicros(joined)
	if live.Valid {
		p.Live = json.RawMessage(live.String)
	}
	if scored != 0 {
		p.Scored = store.FromMicros(scored)
	}
	if final.Valid {
		p.Final = json.RawMessage(final.String)
	}
	return p, nil
}

func notFoundChallenge(op, id string) error {
	return store.Errorf(store.NotFound, op, "no challenge %s", id)
}

// newCode returns CodeLength characters of CodeAlphabet from crypto/rand, each equally likely
// (bytes past the largest multiple of the alphabet's length are drawn again).
func newCode() string {
	const n = len(store.CodeAlphabet)
	limit := byte(256 / n * n)
	out := make([]byte, 0, store.CodeLength)
	var b [16]byte
	for len(out) < store.CodeLength {
		_, _ = rand.Read(b[:]) // never fails on supported systems (it panics itself if it cannot)
		for _, x := range b {
			if x < limit && len(out) < store.CodeLength {
				out = append(out, store.CodeAlphabet[x%byte(n)])
			}
		}
	}
	return string(out)
}

// normalCode reads a join code as a person types it: case-insensitive, surrounding spaces and
// one dash or space in the middle ("ab3-def") ignored. ok is false for anything that cannot be
// a code, which is then never looked up.
func normalCode(code string) (string, bool) {
	if len(code) > 4*store.CodeLength {
		return "", false
	}
	code = strings.TrimSpace(code)
	if i := strings.IndexAny(code, "- "); i > 0 && i < len(code)-1 {
		code = code[:i] + code[i+1:]
	}
	if len(code) != store.CodeLength {
		return "", false
	}
	b := []byte(code)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
			b[i] = c
		}
		if strings.IndexByte(store.CodeAlphabet, c) < 0 {
			return "", false
		}
	}
	return string(b), true
}

func checkState(op string, st store.ChallengeState) error {
	switch st {
	case store.ChallengeOpen, store.ChallengeFrozen, store.ChallengeRevealed:
		return nil
	}
	return store.Errorf(store.Invalid, op, "the state %q is none of %q, %q and %q", st, store.ChallengeOpen, store.ChallengeFrozen, store.ChallengeRevealed)
}

// CreateChallenge implements store.Challenges.
func (s *DB) CreateChallenge(ctx context.Context, c store.NewChallenge) (store.Challenge, error) {
	const op = "create challenge"
	if err := firstErr(checkID(op, "workspace ID", c.Workspace),
		store.CheckText(op, "title", c.Title, store.MaxTitle, true, false),
		store.CheckText(op, "owner", c.Owner, store.MaxAuthor, false, false),
		store.CheckText(op, "owner ID", c.OwnerID, store.MaxAuthor, false, false),
		store.CheckJSON(op, "challenge's settings", c.Settings, store.MaxChallengeSettings, true)); err != nil {
		return store.Challenge{}, err
	}
	at := now(c.Now)
	out := store.Challenge{ID: store.NewID(), Workspace: c.Workspace, Title: c.Title, Owner: c.Owner, OwnerID: c.OwnerID,
		Settings: append(json.RawMessage(nil), c.Settings...), State: store.ChallengeOpen, Created: at, Changed: at}
	err := s.inTx(ctx, op, func(tx *sql.Tx) ([]store.Event, error) {
		if err := s.lockWorkspace(ctx, tx, op, c.Workspace); err != nil {
			return nil, err
		}
		// A code another challenge holds is drawn again; ON CONFLICT keeps the transaction
		// usable on PostgreSQL, where a failed statement would abort it. With 31^6 codes a
		// second draw is rare and a tenth means something else is wrong.
		for range 10 {
			out.Code = newCode()
			res, err := tx.ExecContext(ctx, s.q(`INSERT INTO challenges (`+challengeCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (code) DO NOTHING`), out.ID, out.Code, out.Workspace, out.Title, out.Owner, out.OwnerID,
				string(out.Settings), string(out.State), store.Micros(at), store.Micros(at))
			if err != nil {
				return nil, err
			}
			if n, err := res.RowsAffected(); err != nil || n == 1 {
				return []store.Event{{Workspace: out.ID, Kind: store.EventChallenge}}, err
			}
		}
		return nil, store.Errorf(store.Internal, op, "ten join codes in a row were taken already; try again, and report it if it keeps happening")
	})
	if err != nil {
		return store.Challenge{}, err
	}
	return out, nil
}

// Challenge implements store.Challenges.
func (s *DB) Challenge(ctx context.Context, id string) (store.Challenge, error) {
	const op = "read challenge"
	if err := checkID(op, "challenge ID", id); err != nil {
		return store.Challenge{}, err
	}
	c, err := scanChallenge(s.read.QueryRowContext(ctx, s.q(`SELECT `+challengeCols+` FROM challenges WHERE id = ?`), id))
	if errors.Is(err, sql.ErrNoRows) {
		return c, notFoundChallenge(op, id)
	}
	return c, s.wrap(op, err)
}

// ChallengeByCode implements store.Challenges.
func (s *DB) ChallengeByCode(ctx context.Context, code string) (store.Challenge, error) {
	const op = "read challenge"
	// The message never repeats the code: it may be anything a visitor typed.
	notFound := store.Errorf(store.NotFound, op, "no challenge has this join code; check the code the teacher shows (%d characters)", store.CodeLength)
	want, ok := normalCode(code)
	if !ok {
		return store.Challenge{}, notFound
	}
	c, err := scanChallenge(s.read.QueryRowContext(ctx, s.q(`SELECT `+challengeCols+` FROM challenges WHERE code = ?`), want))
	if errors.Is(err, sql.ErrNoRows) {
		return c, notFound
	}
	return c, s.wrap(op, err)
}

// ChallengesOf implements store.Challenges.
func (s *DB) ChallengesOf(ctx context.Context, ws string) ([]store.Challenge, error) {
	const op = "list challenges"
	if err := checkID(op, "workspace ID", ws); err != nil {
		return nil, err
	}
	rows, err := s.read.QueryContext(ctx, s.q(`SELECT `+challengeCols+` FROM challenges WHERE workspace_id = ? ORDER BY created_at DESC, id DESC`), ws)
	if err != nil {
		return nil, s.wrap(op, err)
	}
	defer rows.Close()
	out := []store.Challenge{}
	for rows.Next() {
		c, err := scanChallenge(rows)
		if err != nil {
			return nil, s.wrap(op, err)
		}
		out = append(out, c)
	}
	return out, s.wrap(op, rows.Err())
}

// lockChallenge reads a challenge under its row lock (PostgreSQL; SQLite's write transaction
// holds every lock already). Joins and changes of state take it first, so that a count of
// participants and the list a state change is sent to are whole.
func (s *DB) lockChallenge(ctx context.Context, tx *sql.Tx, op, id string) (store.Challenge, error) {
	c, err := scanChallenge(tx.QueryRowContext(ctx, s.q(`SELECT `+challengeCols+` FROM challenges WHERE id = ?`+s.forUpdate()), id))
	if errors.Is(err, sql.ErrNoRows) {
		return c, notFoundChallenge(op, id)
	}
	return c, err
}

// SetChallengeState implements store.Challenges.
func (s *DB) SetChallengeState(ctx context.Context, id string, state store.ChallengeState, at time.Time) (store.Challenge, error) {
	const op = "set challenge state"
	if err := firstErr(checkID(op, "challenge ID", id), checkState(op, state)); err != nil {
		return store.Challenge{}, err
	}
	var out store.Challenge
	err := s.inTx(ctx, op, func(tx *sql.Tx) ([]store.Event, error) {
		c, err := s.lockChallenge(ctx, tx, op, id)
		if err != nil {
			return nil, err
		}
		out = c
		if c.State == state {
			return nil, nil
		}
		out.State, out.Changed = state, now(at)
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE challenges SET state = ?, changed_at = ? WHERE id = ?`), string(state), store.Micros(out.Changed), id); err != nil {
			return nil, err
		}
		rows, err := tx.QueryContext(ctx, s.q(`SELECT workspace_id FROM challenge_participants WHERE challenge_id = ? ORDER BY number`), id)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		evs := []store.Event{{Workspace: id, Kind: store.EventChallenge}}
		for rows.Next() {
			var ws string
			if err := rows.Scan(&ws); err != nil {
				return nil, err
			}
			evs = append(evs, store.Event{Workspace: ws, Kind: store.EventChallenge})
		}
		return evs, rows.Err()
	})
	if err != nil {
		return store.Challenge{}, err
	}
	return out, nil
}

// AddParticipant implements store.Challenges.
func (s *DB) AddParticipant(ctx context.Context, p store.NewParticipant) (store.Participant, error) {
	const op = "add participant"
	errs := []error{checkID(op, "challenge ID", p.Challenge), checkID(op, "workspace ID", p.Workspace),
		store.CheckText(op, "name", p.Name, store.MaxParticipantName, true, false)}
	if p.LinkID != "" {
		errs = append(errs, checkID(op, "share link ID", p.LinkID))
	}
	if err := firstErr(errs...); err != nil {
		return store.Participant{}, err
	}
	key := store.ParticipantNameKey(p.Name)
	if key == "" {
		return store.Participant{}, store.Errorf(store.Invalid, op, "the name has no visible characters; give a name the leaderboard can show")
	}
	out := store.Participant{ID: store.NewID(), Challenge: p.Challenge, Name: p.Name, Workspace: p.Workspace, LinkID: p.LinkID, Joined: now(p.Now)}
	err := s.inTx(ctx, op, func(tx *sql.Tx) ([]store.Event, error) {
		c, err := s.lockChallenge(ctx, tx, op, p.Challenge)
		if err != nil {
			return nil, err
		}
		if p.Workspace == c.Workspace {
			return nil, store.Errorf(store.Invalid, op, "workspace %s is the one challenge %s was made from; a participant's copy is a new workspace", p.Workspace, c.ID)
		}
		var n, last int
		if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*), COALESCE(MAX(number), 0) FROM challenge_participants WHERE challenge_id = ?`), p.Challenge).Scan(&n, &last); err != nil {
			return nil, err
		}
		if n >= store.MaxParticipants {
			return nil, store.Errorf(store.Invalid, op, "challenge %s has %d participants, the limit; make a second challenge from the same workspace for the rest of the room", p.Challenge, n)
		}
		var taken, other string
		err = tx.QueryRowContext(ctx, s.q(`SELECT name FROM challenge_participants WHERE challenge_id = ? AND name_key = ?`), p.Challenge, key).Scan(&taken)
		if err == nil {
			return nil, store.Errorf(store.Conflict, op, "the name %q is taken in this challenge (by %q); choose another", p.Name, taken)
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		err = tx.QueryRowContext(ctx, s.q(`SELECT challenge_id FROM challenge_participants WHERE workspace_id = ?`), p.Workspace).Scan(&other)
		if err == nil {
			return nil, store.Errorf(store.Conflict, op, "workspace %s is already a participant's copy (in challenge %s); give each participant a new workspace", p.Workspace, other)
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		var one int
		if err := tx.QueryRowContext(ctx, s.q(`SELECT 1 FROM workspaces WHERE id = ?`), p.Workspace).Scan(&one); errors.Is(err, sql.ErrNoRows) {
			return nil, notFoundWorkspace(op, p.Workspace)
		} else if err != nil {
			return nil, err
		}
		_, err = tx.ExecContext(ctx, s.q(`INSERT INTO challenge_participants (id, challenge_id, number, name, name_key, workspace_id, link_id, joined_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`), out.ID, p.Challenge, last+1, p.Name, key, p.Workspace, p.LinkID, store.Micros(out.Joined))
		if err != nil {
			return nil, err
		}
		return []store.Event{{Workspace: p.Challenge, Kind: store.EventChallenge, Field: out.ID}}, nil
	})
	if err != nil {
		return store.Participant{}, err
	}
	return out, nil
}

// Participants implements store.Challenges.
func (s *DB) Participants(ctx context.Context, challenge string) ([]store.Participant, error) {
	const op = "list participants"
	if err := checkID(op, "challenge ID", challenge); err != nil {
		return nil, err
	}
	if _, err := s.Challenge(ctx, challenge); err != nil {
		return nil, err
	}
	rows, err := s.read.QueryContext(ctx, s.q(`SELECT `+participantCols+` FROM challenge_participants WHERE challenge_id = ? ORDER BY number`), challenge)
	if err != nil {
		return nil, s.wrap(op, err)
	}
	defer rows.Close()
	out := []store.Participant{}
	for rows.Next() {
		p, err := scanParticipant(rows)
		if err != nil {
			return nil, s.wrap(op, err)
		}
		out = append(out, p)
	}
	return out, s.wrap(op, rows.Err())
}

// ParticipantOf implements store.Challenges.
func (s *DB) ParticipantOf(ctx context.Context, ws string) (store.Participant, error) {
	const op = "read participant"
	if err := checkID(op, "workspace ID", ws); err != nil {
		return store.Participant{}, err
	}
	p, err := scanParticipant(s.read.QueryRowContext(ctx, s.q(`SELECT `+participantCols+` FROM challenge_participants WHERE workspace_id = ?`), ws))
	if errors.Is(err, sql.ErrNoRows) {
		return p, store.Errorf(store.NotFound, op, "workspace %s is nobody's copy", ws)
	}
	return p, s.wrap(op, err)
}

// PutScore implements store.Challenges.
func (s *DB) PutScore(ctx context.Context, u store.ScoreUpdate) (store.Participant, error) {
	const op = "store score"
	errs := []error{checkID(op, "challenge ID", u.Challenge), checkID(op, "participant ID", u.Participant),
		store.CheckJSON(op, "score", u.Score, store.MaxScore, true)}
	if u.Seq < 0 {
		errs = append(errs, store.Errorf(store.Invalid, op, "the edit sequence number %d is negative", u.Seq))
	}
	if err := firstErr(errs...); err != nil {
		return store.Participant{}, err
	}
	var out store.Participant
	err := s.inTx(ctx, op, func(tx *sql.Tx) ([]store.Event, error) {
		// The row lock orders two scorings of one participant: the seq compared is the one kept.
		p, err := scanParticipant(tx.QueryRowContext(ctx, s.q(`SELECT `+participantCols+` FROM challenge_participants WHERE id = ? AND challenge_id = ?`+s.forUpdate()),
			u.Participant, u.Challenge))
		if errors.Is(err, sql.ErrNoRows) {
			return nil, store.Errorf(store.NotFound, op, "challenge %s has no participant %s", u.Challenge, u.Participant)
		}
		if err != nil {
			return nil, err
		}
		out = p
		score := append(json.RawMessage(nil), u.Score...)
		if u.Final {
			out.Final = score
			_, err = tx.ExecContext(ctx, s.q(`UPDATE challenge_participants SET final = ? WHERE id = ?`), string(score), p.ID)
		} else {
			if u.Seq < p.Seq {
				return nil, nil // an older scoring that finished late
			}
			out.Seq, out.Live, out.Scored = u.Seq, score, now(u.Now)
			_, err = tx.ExecContext(ctx, s.q(`UPDATE challenge_participants SET seq = ?, live = ?, scored_at = ? WHERE id = ?`),
				u.Seq, string(score), store.Micros(out.Scored), p.ID)
		}
		if err != nil {
			return nil, fmt.Errorf("participant %s: %w", p.ID, err)
		}
		return []store.Event{{Workspace: u.Challenge, Kind: store.EventChallenge, Field: p.ID},
			{Workspace: p.Workspace, Kind: store.EventChallenge, Field: p.ID}}, nil
	})
	if err != nil {
		return store.Participant{}, err
	}
	return out, nil
}
