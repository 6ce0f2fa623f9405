package runs

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/tool-workbench/workbench/selection/runner"
	"github.com/tool-workbench/workbench/store"
)

// Body is what a stored run's body holds: the listing it ran against (to resume it after the
// workspace has moved on) and the run itself.
type Body struct {
	Listing json.RawMessage `json:"listing"`
	Run     *runner.Run     `json:"run,omitempty"`
}

// Meta is a stored run's summary, for lists.
type Meta struct {
	Endpoint    string   `json:"endpoint"`
	Model       string   `json:"model"`
	Samples     int      `json:"samples"`
	Tasks       int      `json:"tasks"`
	Done        int      `json:"done"`
	Total       int      `json:"total"`
	Errors      int      `json:"errors"`
	Accuracy    *float64 `json:"accuracy,omitempty"`
	Problem     string   `json:"problem,omitempty"`
	TasksHash   string   `json:"tasksHash,omitempty"`
	ListingHash string   `json:"listingHash,omitempty"`
	// Claim names the process holding a running run (a random nonce per start or resume), and
	// BeatMS is how often that process saves it: the lease (Service.Lease) is read from it,
	// so replicas configured with other SaveEvery values agree on it.
	Claim  string `json:"claim,omitempty"`
	BeatMS int64  `json:"beatMs,omitempty"`
	// Cached and LastErr complete the counts of a running run, so that other replicas show
	// its bar from the meta alone, without reading its calls at each save.
	Cached  int    `json:"cached,omitempty"`
	LastErr string `json:"lastErr,omitempty"`
}

// MetaOf reads rec's meta; a meta that cannot be read reads as empty (a list still shows the
// run).
func MetaOf(rec store.Run) Meta {
	m := Meta{}
	_ = json.Unmarshal(rec.Meta, &m)
	return m
}

// Run statuses, as stored.
const (
	Running     = "running"
	Done        = "done"
	Cancelled   = "cancelled"
	Failed      = "failed"
	Interrupted = "interrupted"
	// Cancelling is a running run that a page on another replica asked to cancel: the
	// process running it finds its next write (heartbeat or save) refused, because the request
	// moved Updated, reads the request, and ends the run as cancelled.
	Cancelling = "cancelling"
)

// FirstError is the error of r's first failed call ("" when none failed).
func FirstError(r *runner.Run) string {
	for _, c := range r.Calls {
		if c.Outcome == runner.OutError {
			return c.Error
		}
	}
	return ""
}

// stampAfter is the Updated of a write that follows one at prev: now at the store's precision,
// and later than prev even when the clock has not moved on (or stepped back), so that every
// write is told apart from the one before it.
func stampAfter(prev time.Time) time.Time {
	if t := store.Now(); t.After(prev) {
		return t
	}
	return prev.UTC().Truncate(time.Microsecond).Add(time.Microsecond)
}

// shortError bounds an error message kept in a run's meta.
func shortError(s string) string {
	if r := []rune(s); len(r) > 500 {
		return string(r[:500]) + "…"
	}
	return s
}

// MustJSON encodes v, one of this package's record types, which always encode.
func MustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("encode %T: %v", v, err)) // only our own types, which always encode
	}
	return b
}
