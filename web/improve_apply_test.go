package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/drafting/fakemodel"
	"github.com/tool-workbench/workbench/listing"
)

// improvedJob runs an improvement of the confusing fixture to its end and returns the
// workspace, the job's id and the tools it changed.
func improvedJob(t *testing.T, e *runEnv) (ws, jid string, changed []changedTool) {
	t.Helper()
	ws = confusingWorkspace(t, e)
	jid = startImprove(t, e, ws, improveValues())
	if body := waitImprove(t, e, ws, jid); !strings.Contains(body, `data-status="improved"`) {
		t.Fatalf("not improved:\n%s", body)
	}
	j := e.s.drafts.improves.get(ws, time.Now())
	changed = j.changed(j.snapshot().rep)
	if len(changed) == 0 {
		t.Fatal("improved, but no tool changed")
	}
	return ws, jid, changed
}

// TestImproveApplyOnce: two Applies of one job posted at once store one revision; the other
// answers that the job was already applied, and the status offers Apply no more.
func TestImproveApplyOnce(t *testing.T) {
	e := newDraftEnv(t, &fakemodel.Server{Rewrites: honestRewrites(t)})
	ws, jid, _ := improvedJob(t, e)
	answers := make([]string, 2)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, answers[i] = e.edit(t, "/w/"+ws+"/tasks/improve/"+jid+"/apply")
		}()
	}
	wg.Wait()
	stored, refused := 0, 0
	for _, a := range answers {
		switch {
		case strings.Contains(a, "1 revision stored"):
			stored++
		case strings.Contains(a, "Already applied"):
			refused++
		}
	}
	if stored != 1 || refused != 1 {
		t.Errorf("two Applies at once: %d stored, %d refused as applied; want 1 and 1:\n%.400s\n---\n%.400s", stored, refused, answers[0], answers[1])
	}
	if _, st := e.call(t, http.MethodGet, "/w/"+ws+"/tasks/improve/"+jid, nil); strings.Contains(st, `data-testid="improve-apply"`) {
		t.Error("the status after Apply still offers Apply")
	}
}

// TestImproveApplyRefusesChangedTool: a tool edited after the job read it (here its
// description emptied) refuses Apply, naming it; nothing is stored, and the refusal does not use
// up the job's one Apply.
func TestImproveApplyRefusesChangedTool(t *testing.T) {
	e := newDraftEnv(t, &fakemodel.Server{Rewrites: honestRewrites(t)})
	ws, jid, changed := improvedJob(t, e)
	e.edit(t, "/w/"+ws+"/edit?t="+strconv.Itoa(changed[0].index)+"&f=description") // empties the description
	code, ans := e.edit(t, "/w/"+ws+"/tasks/improve/"+jid+"/apply")
	if code != http.StatusOK || !strings.Contains(ans, "changed since the improvement") || !strings.Contains(ans, changed[0].name) {
		t.Fatalf("apply after the tool changed: %d %s", code, ans)
	}
	j := e.s.drafts.improves.get(ws, time.Now())
	j.mu.Lock()
	applied, applying := j.applied, j.applying
	j.mu.Unlock()
	if applied != "" || applying {
		t.Error("a refused Apply marked the job applied")
	}
}

// TestImproveEditSeesSchemaEdits: the head's tool must be as the job read it everywhere, not
// only in its name and description: a parameter edited since is a stale Apply, since the
// rewrites were judged against the old schema.
func TestImproveEditSeesSchemaEdits(t *testing.T) {
	parse := func(src string) *listing.Listing {
		l, err := listing.Parse([]byte(src), listing.Options{Name: "t.json"})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	const tool = `{"tools": [{"name": "get_ticket", "description": "Reads a ticket.", "inputSchema": {"type": "object", "properties": {"%s": {"type": "string"}}}}]}`
	read := parse(strings.Replace(tool, "%s", "id", 1))
	o := snapshotTools(read)[0]
	changed := []changedTool{{index: 0, name: o.name, old: o.desc, new: "Reads one ticket by its id.", hash: o.hash}}
	for _, tc := range []struct {
		name  string
		head  *listing.Listing
		stale bool
	}{
		{"as read", read, false},
		{"a parameter renamed since", parse(strings.Replace(tool, "%s", "ticket", 1)), true},
	} {
		_, _, err := improveEdit(changed).Make(tc.head)
		var st errImproveStale
		if got := err != nil && errors.As(err, &st); got != tc.stale {
			t.Errorf("%s: stale %v (err %v), want %v", tc.name, got, err, tc.stale)
		}
	}
}
