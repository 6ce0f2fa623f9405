package runs

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/store"
)

// TestStatusOfLease reads stored runs through the lease: the owner's recorded heartbeat
// interval sets it (else this server's SaveEvery), LeaseMin floors it, an Updated in the
// future (a reader whose clock runs behind) reads as alive, and a lapsed cancel request reads as
// cancelled.
func TestStatusOfLease(t *testing.T) {
	r := New(Config{SaveEvery: 2 * time.Second}, nil, nil, nil)
	now := time.Now()
	meta := func(beatMS int64) json.RawMessage { return MustJSON(Meta{Claim: "x", BeatMS: beatMS}) }
	for _, tc := range []struct {
		name      string
		status    string
		age       time.Duration
		meta      json.RawMessage
		want      string
		elsewhere bool
		lease     time.Duration
	}{
		{"fresh running", Running, time.Second, meta(2000), Running, true, 6 * time.Second},
		{"within three beats", Running, 5 * time.Second, meta(2000), Running, true, 6 * time.Second},
		{"past three beats", Running, 7 * time.Second, meta(2000), Interrupted, false, 6 * time.Second},
		{"owner's longer beat wins over ours", Running, 20 * time.Second, meta(10000), Running, true, 30 * time.Second},
		{"owner's short beat, floored", Running, 500 * time.Millisecond, meta(10), Running, true, LeaseMin},
		{"owner's short beat, lapsed", Running, 2 * time.Second, meta(10), Interrupted, false, LeaseMin},
		{"no beat recorded: ours", Running, 5 * time.Second, nil, Running, true, 6 * time.Second},
		{"updated in the future", Running, -time.Minute, meta(2000), Running, true, 6 * time.Second},
		{"cancel asked, owner alive", Cancelling, time.Second, meta(2000), Cancelling, true, 6 * time.Second},
		{"cancel asked, owner gone", Cancelling, time.Minute, meta(2000), Cancelled, false, 6 * time.Second},
		{"done is done", Done, time.Second, meta(2000), Done, false, 6 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := store.Run{ID: strings.Repeat("a", 32), Status: tc.status, Updated: now.Add(-tc.age), Meta: tc.meta}
			if got := r.Lease(rec); got != tc.lease {
				t.Errorf("lease %s, want %s", got, tc.lease)
			}
			got, elsewhere := r.StatusOf(rec)
			if got != tc.want || elsewhere != tc.elsewhere {
				t.Errorf("read as %q (elsewhere %v), want %q (elsewhere %v)", got, elsewhere, tc.want, tc.elsewhere)
			}
		})
	}
}
