package challenge

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/store"
)

// settings is the document a challenge is stored as (store.Challenge.Settings): its File, and
// beside it the starting listing and the practice tasks that participants' copies are made of.
// Parse skips "start" and "practice", so the stored document is itself a challenge file that
// `workbench challenge score --hidden` reads.
type settings struct {
	*File
	Start    json.RawMessage  `json:"start"`
	Practice []selection.Task `json:"practice"`
}

// encodeSettings writes the stored document of f with the starting listing and practice tasks.
func encodeSettings(f *File, start *listing.Listing, practice []selection.Task) ([]byte, error) {
	c := *f
	if c.Penalties.Rules == nil {
		c.Penalties.Rules = []string{}
	}
	if practice == nil {
		practice = []selection.Task{}
	}
	b, err := encodeJSON(settings{File: &c, Start: start.Marshal(""), Practice: practice})
	if err != nil {
		return nil, err
	}
	if len(b) > store.MaxChallengeSettings {
		return nil, invalid("the challenge with its starting listing and tasks is %d bytes; a challenge holds at most %d: use a smaller listing or fewer tasks", len(b), store.MaxChallengeSettings)
	}
	return b, nil
}

// parsed is what a stored challenge's settings read as; settings never change once stored.
type parsed struct {
	file     *File
	start    *listing.Listing
	practice []selection.Task
}

func parseSettings(doc []byte) (*parsed, error) {
	f, err := Parse(doc)
	if err != nil {
		return nil, fmt.Errorf("read stored challenge: %w", err)
	}
	var extra struct {
		Start    json.RawMessage  `json:"start"`
		Practice []selection.Task `json:"practice"`
	}
	if err := json.Unmarshal(doc, &extra); err != nil {
		return nil, fmt.Errorf("read stored challenge: %w", err)
	}
	if len(extra.Start) == 0 {
		return nil, fmt.Errorf("read stored challenge: it has no starting listing")
	}
	l, err := listing.Parse(extra.Start, listing.Options{Name: "the starting listing"})
	if err != nil {
		return nil, fmt.Errorf("read stored challenge: %w", err)
	}
	return &parsed{file: f, start: l, practice: extra.Practice}, nil
}

// parsedCache keeps the settings of challenges read, by ID, so that no scoring parses a file:
// a few hundred challenges at most, any one dropped past that (reading one again costs a parse).
type parsedCache struct {
	mu sync.Mutex
	m  map[string]*parsed
}

const maxParsed = 256

func (pc *parsedCache) get(rec store.Challenge) (*parsed, error) {
	pc.mu.Lock()
	p, ok := pc.m[rec.ID]
	pc.mu.Unlock()
	if ok {
		return p, nil
	}
	p, err := parseSettings(rec.Settings)
	if err != nil {
		return nil, err
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.m == nil {
		pc.m = map[string]*parsed{}
	}
	if len(pc.m) >= maxParsed {
		for k := range pc.m {
			delete(pc.m, k)
			break
		}
	}
	pc.m[rec.ID] = p
	return p, nil
}

// scoreDoc is the score document stored for a participant (store.ScoreUpdate.Score): the
// Result with when the participant first reached the score and tokens they hold (the
// leaderboard ranks by both before time) and when their score last
// went up, so that the leaderboard's tie-break and "improved ago" survive a restart.
type scoreDoc struct {
	Result
	Reached  time.Time `json:"reached"`
	Improved time.Time `json:"improved,omitzero"`
}

// next is the document of a new result r scored at now after d (nil: the first scoring).
func (d *scoreDoc) next(r Result, now time.Time) *scoreDoc {
	n := &scoreDoc{Result: r, Reached: now, Improved: now}
	if d != nil {
		if r.Score == d.Score && r.Tokens == d.Tokens {
			n.Reached = d.Reached
		}
		if r.Score <= d.Score {
			n.Improved = d.Improved
		}
	}
	return n
}

func decodeScore(b json.RawMessage) (*scoreDoc, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var d scoreDoc
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("read stored score: %w", err)
	}
	return &d, nil
}
