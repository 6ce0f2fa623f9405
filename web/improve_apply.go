package web

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/starfederation/datastar-go/datastar"

	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/views"
)

// improveView is the dialog's view of job j.
func (s *Server) improveView(j *improveJob) views.ImproveStatus {
	sn := j.snapshot()
	st := views.ImproveStatus{WS: j.ws, JID: j.id, Running: sn.running, Endpoint: j.endpoint, Problem: sn.problem, Done: sn.applied}
	// While it runs the newest lines show; the report ends with all of them kept.
	st.Lines = sn.lines
	if sn.running {
		st.Lines = sn.lines[max(len(sn.lines)-12, 0):]
	}
	if sn.rep != nil {
		r := improveReportView(sn.rep, j.changed(sn.rep))
		r.CanApply = r.CanApply && sn.applied == "" && sn.problem == ""
		st.Report = &r
	}
	return st
}

// improveReportView is the report as the page shows it.
func improveReportView(rep *drafting.ImproveReport, changed []changedTool) views.ImproveReport {
	r := views.ImproveReport{Verdict: rep.Verdict, Improved: rep.Improved, HeldBefore: rep.HeldBefore, HeldAfter: rep.HeldAfter,
		HeldPairs: rep.HeldPairs, Before: rep.Before, After: rep.After, Stopped: rep.Stopped, Problems: rep.Problems,
		Calls: rep.Calls, Budget: rep.Budget}
	if cmp := rep.Compare; cmp != nil {
		r.Measured, r.Low, r.High, r.P = true, cmp.Interval.Low, cmp.Interval.High, cmp.McNemarP
	}
	for _, a := range rep.Attempts {
		r.Attempts = append(r.Attempts, views.ImproveAttempt{Round: a.Round, Tool: a.Tool, Description: a.Description, Reason: a.Reason, Kept: a.Kept})
	}
	for _, ch := range changed {
		r.Changes = append(r.Changes, views.ImproveChange{Tool: ch.name, Diff: diffRuns(ch.old, ch.new)})
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b); err == nil {
		r.Text = b.String()
	}
	r.CanApply = rep.Improved && len(changed) > 0
	return r
}

// improveRefusal is the job's view with why Apply was refused, and no Apply button.
func improveRefusal(st views.ImproveStatus, why string) views.ImproveStatus {
	st.Problem = why
	if st.Report != nil {
		st.Report.CanApply = false
	}
	return st
}

// improveAppliedOnce refuses a job's second Apply.
const improveAppliedOnce = "Already applied: this improvement was already applied once; run the improvement again to apply its rewrites anew (Undo takes back a revision, not the job)."

// startApply marks j as applying, or says false when it is applying or applied already.
func (j *improveJob) startApply() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.applying || j.applied != "" {
		return false
	}
	j.applying = true
	return true
}

// endApply lets j be applied again, after an Apply that stored nothing.
func (j *improveJob) endApply() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.applying = false
}

// errImproveStale is an Apply whose tools changed since the loop read them.
type errImproveStale struct{ names []string }

func (e errImproveStale) Error() string {
	return "changed since the improvement: " + strings.Join(e.names, ", ")
}

// improveEdit sets the changed tools' descriptions, made from the head under the store's lock:
// each tool must still be at its place with its name, and its content (schema included) as the
// loop read it.
func improveEdit(changed []changedTool) *Edit {
	names := make([]string, len(changed))
	for i, ch := range changed {
		names[i] = ch.name
	}
	return &Edit{Message: "Apply improved descriptions of " + strings.Join(names, ", "), Alone: true,
		Make: func(head *listing.Listing) ([]listing.Op, []lint.Rename, error) {
			var stale []string
			for _, ch := range changed {
				if ch.index >= len(head.Tools) {
					stale = append(stale, ch.name)
					continue
				}
				t := head.Tools[ch.index]
				if t.Get("name").String() != ch.name || t.Get("description").String() != ch.old || listing.HashOf(t) != ch.hash {
					stale = append(stale, ch.name)
				}
			}
			if len(stale) > 0 {
				return nil, nil, errImproveStale{stale}
			}
			var ops []listing.Op
			for _, ch := range changed {
				o, err := drafting.Ops(head, ch.index, ch.new, nil)
				if err != nil {
					return nil, nil, acceptError{err}
				}
				ops = append(ops, o...)
			}
			return ops, nil, nil
		}}
}

// improveApply stores the changed tools' descriptions of an improved job as one revision.
func (s *Server) improveApply(c echo.Context) error {
	sg, err := readSignals(c)
	if err != nil {
		return err
	}
	if err := s.requireEdit(c); err != nil {
		return err
	}
	if err := s.teacherOnly(c); err != nil {
		return err
	}
	id := c.Param("id")
	j, err := s.improveJobOf(c)
	if err != nil {
		return err
	}
	if j == nil {
		return patchImprove(c, improveGone(id))
	}
	sn := j.snapshot()
	changed := j.changed(sn.rep)
	if sn.running || sn.rep == nil || !sn.rep.Improved || sn.problem != "" || len(changed) == 0 {
		return patchImprove(c, views.ImproveStatus{WS: id, Problem: "This improvement has nothing to apply: only a listing the held-out tasks show better is offered."})
	}
	if !j.startApply() {
		st := s.improveView(j)
		st.Done = "" // the refusal, not the first Apply's "stored", answers this one
		return patchImprove(c, improveRefusal(st, improveAppliedOnce))
	}
	tool := changed[0].index
	if sg.Tool >= 0 {
		tool = sg.Tool
	}
	ch := change{edit: improveEdit(changed), tool: tool, structure: true, select_: -1, click: true}
	out, err := s.record(c, sg, ch)
	if err != nil || out == nil {
		j.endApply() // nothing stored: Apply may be tried again
	}
	var stale errImproveStale
	switch {
	case errors.As(err, &stale):
		return patchImprove(c, improveRefusal(s.improveView(j), fmt.Sprintf(
			"%s changed since the improvement read them, so nothing was applied: the rewrites were judged against the old text. Start the improvement again.",
			strings.Join(stale.names, ", "))))
	case errors.As(err, new(acceptError)):
		return patchImprove(c, improveRefusal(s.improveView(j), "The revised descriptions cannot be applied to the listing as it stands: "+
			oneLine(errors.Unwrap(err).Error(), 300)+". Start the improvement again."))
	case err != nil:
		return s.refused(c, sg, ch, out.ws, err)
	case out == nil:
		return patchImprove(c, views.ImproveStatus{WS: id, Problem: "The descriptions already read as revised: nothing to change."})
	}
	msg := fmt.Sprintf("Applied the revised descriptions of %d %s: 1 revision stored. Undo takes it back.", len(changed), plural(len(changed), "tool", "tools"))
	j.mu.Lock()
	j.applied = msg // stored: whatever the answer does, the job is applied
	j.mu.Unlock()
	s.follow(id, sg, ch, out)
	if err := s.answer(c, sg, ch, out); err != nil {
		return err
	}
	_ = newSSE(c).PatchElementTempl(views.DraftDone(msg), datastar.WithModeReplace())
	return nil
}
