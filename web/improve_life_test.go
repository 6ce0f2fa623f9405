package web

import (
	"net/http"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/drafting/fakemodel"
	"github.com/tool-workbench/workbench/selection/fake"
)

// slowImprove starts an improvement on a model that answers each tool choice after 100 ms, so
// that the loop is still running when the test acts on it.
func slowImprove(t *testing.T) (e *runEnv, m *fakemodel.Server, ws, jid string) {
	t.Helper()
	m = &fakemodel.Server{Chooser: fake.Server{Delay: 100 * time.Millisecond}}
	e = newDraftEnv(t, m)
	ws = confusingWorkspace(t, e)
	return e, m, ws, startImprove(t, e, ws, improveValues())
}

// TestImproveEndsAtClose: Server.Close cancels a running improvement and waits for it: once
// Close returned the loop has ended, cancelled, and calls the model no more.
func TestImproveEndsAtClose(t *testing.T) {
	e, m, ws, _ := slowImprove(t)
	e.s.Close()
	before := m.Requests()
	j := e.s.drafts.improves.get(ws, time.Now())
	sn := j.snapshot()
	if sn.running {
		t.Fatal("Close returned with the improvement still running")
	}
	time.Sleep(500 * time.Millisecond)
	if after := m.Requests(); after > before {
		t.Errorf("after Close the improvement called the model %d more times", after-before)
	}
	if sn.problem == "" {
		t.Error("the closed improvement's report does not say it was stopped")
	}
}

// TestImproveCancelKeepsLinesBound: cancelling a job whose progress lines are at their bound
// keeps them at it (the "cancelling…" line takes the oldest one's place).
func TestImproveCancelKeepsLinesBound(t *testing.T) {
	e, _, ws, jid := slowImprove(t)
	j := e.s.drafts.improves.get(ws, time.Now())
	j.mu.Lock()
	for len(j.lines) < maxImproveLines {
		j.lines = append(j.lines, "filler")
	}
	j.mu.Unlock()
	e.call(t, http.MethodPost, "/w/"+ws+"/tasks/improve/"+jid+"/cancel", nil)
	j.mu.Lock()
	n := len(j.lines)
	j.mu.Unlock()
	if n > maxImproveLines {
		t.Errorf("after cancel the job keeps %d lines, over its bound of %d", n, maxImproveLines)
	}
	waitImprove(t, e, ws, jid)
}
