package web

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/internal/lru"
	"github.com/tool-workbench/workbench/listing"
)

// The drafting actions' answers stay on the server until the person picks from them: a
// suggestion's candidates until one is accepted, a task proposal's until some are added. The
// page names them by a random id, never by their text. Both caches are bounded by entries and,
// with the server's other caches, by bytes (Config.CacheBytes); an entry also expires, so that
// an old dialog says "ask again" rather than apply what was scored against another listing.

const (
	maxDraftEntries = 512
	draftTTL        = 30 * time.Minute
	// maxRubricEntries bounds the server-wide rubric cache (tool rubrics by model and hash).
	maxRubricEntries = 4096
)

type draftKey struct{ ws, id string }

// suggestEntry is one suggestion: which tool it rewrote (index and name), the tool's content
// hash when asked (Accept refuses when the tool changed in any way since: its candidates were
// scored against that tool, and applying them would overwrite what was edited since, parameters
// included), and of each candidate only what Accept applies. The scores, findings and model
// runs the dialog showed are not kept: they can be large, and nothing reads them again.
type suggestEntry struct {
	tool    int
	name    string
	hash    listing.Hash
	cands   []keptCandidate
	expires time.Time
}

// keptCandidate is what Accept needs of a drafting.Candidate.
type keptCandidate struct {
	Description string            `json:"description"`
	Params      map[string]string `json:"parameters,omitempty"`
	Refused     string            `json:"refused,omitempty"`
}

// keep is what a suggestion's entry keeps of its candidates.
func keep(cands []drafting.Candidate) []keptCandidate {
	out := make([]keptCandidate, len(cands))
	for i, c := range cands {
		out[i] = keptCandidate{Description: c.Description, Params: c.Params, Refused: c.Refused}
	}
	return out
}

// proposeEntry is one task proposal. added is set once its ticked tasks are added (claimed
// before the revision, released if it fails), so that a second "Add ticked" adds nothing.
type proposeEntry struct {
	tasks   []drafting.Proposed
	expires time.Time
	added   atomic.Bool
}

// drafts are the Server's drafting state.
type drafts struct {
	suggestions *lru.Cache[draftKey, *suggestEntry]
	proposals   *lru.Cache[draftKey, *proposeEntry]
	rubrics     *drafting.RubricCache
	improves    improveJobs // the improvement loops, by workspace (improve_jobs.go)
	now         func() time.Time

	mu sync.Mutex // guards rubrics
}

func newDrafts(b *lru.Budget) *drafts {
	return &drafts{suggestions: lru.New[draftKey, *suggestEntry](b, maxDraftEntries),
		proposals: lru.New[draftKey, *proposeEntry](b, maxDraftEntries), now: time.Now}
}

// rubricCache is the server-wide rubric cache, made on first use (a server whose pages never
// ask for a rubric keeps none).
func (d *drafts) rubricCache() *drafting.RubricCache {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.rubrics == nil {
		d.rubrics = drafting.NewRubricCache(maxRubricEntries)
	}
	return d.rubrics
}

func (d *drafts) putSuggestion(ws, id string, e *suggestEntry) {
	e.expires = d.now().Add(draftTTL)
	d.suggestions.Add(draftKey{ws, id}, e, e.size())
}

// size is what the entry costs the cache's byte budget: every string it keeps, with room for
// the headers of the slices, maps and strings that hold them.
func (e *suggestEntry) size() int64 {
	size := int64(256 + len(e.name) + len(e.hash))
	for _, c := range e.cands {
		size += int64(96 + len(c.Description) + len(c.Refused))
		for k, v := range c.Params {
			size += int64(len(k) + len(v) + 48)
		}
	}
	return size
}

// suggestion returns a live suggestion of ws, or nil.
func (d *drafts) suggestion(ws, id string) *suggestEntry {
	e, ok := d.suggestions.Get(draftKey{ws, id})
	if !ok || d.now().After(e.expires) {
		return nil
	}
	return e
}

func (d *drafts) putProposal(ws, id string, e *proposeEntry) {
	e.expires = d.now().Add(draftTTL)
	size := int64(256)
	for _, p := range e.tasks {
		size += int64(256 + len(p.Task.Task) + len(expectName(p.Task.Expect)) + len(p.Refused) + len(p.Verdict))
	}
	d.proposals.Add(draftKey{ws, id}, e, size)
}

// proposal returns a live proposal of ws, or nil.
func (d *drafts) proposal(ws, id string) *proposeEntry {
	e, ok := d.proposals.Get(draftKey{ws, id})
	if !ok || d.now().After(e.expires) {
		return nil
	}
	return e
}
