package views

import "fmt"

// The Tasks tab's "Improve with a model…" dialog (issue 18): the improvement loop of package
// drafting, run in the background on the server. The page polls a small status route while
// the loop runs; the report, the attempts and the word diffs are text children (escaped by
// templ), and the expressions carry only server-made values: the workspace and a random job id.

// Ids of the Improve dialog's regions.
const (
	IDImprovePlan   = "improve-plan"
	IDImproveStatus = "improve-status"
)

// ImproveForm is the Improve dialog: what to run, and the plan of calls before it starts.
type ImproveForm struct {
	WS        string
	Refused   string // a view link or a participant's copy: why it may not ask
	Configure string // no endpoint: how to configure one
	Endpoints []RunEndpoint
	Endpoint  string
	Rounds    int
	MaxRounds int
	Samples   int
	MaxSample int
	HeldOut   string
	MaxCalls  int
	Tasks     int
	Plan      ImprovePlan
	// Status is this workspace's improvement, running or ended, shown under the form.
	Status ImproveStatus
}

// ImprovePlan is the most calls the loop makes, and what it cannot do without.
type ImprovePlan struct {
	Calls   int
	Floor   int // the baseline and final runs
	Budget  int
	What    string
	Problem string
}

// ImproveStatus is the state of one improvement: its progress lines while it runs, its report
// when it ended.
type ImproveStatus struct {
	WS       string
	JID      string
	Running  bool
	Endpoint string
	Lines    []string
	Problem  string
	Done     string // after Apply
	Report   *ImproveReport
}

// ImproveReport is an ended improvement's report as the page shows it.
type ImproveReport struct {
	Verdict    string
	Improved   bool
	Measured   bool // the final held-out run compared the two listings
	HeldBefore int
	HeldAfter  int
	HeldPairs  int
	Before     float64
	After      float64
	Low, High  float64
	P          float64
	Attempts   []ImproveAttempt
	Changes    []ImproveChange
	Stopped    string
	Problems   []string
	Calls      int
	Budget     int
	Text       string // the report as the CLI writes it
	CanApply   bool
}

// ImproveAttempt is one candidate rewrite tried.
type ImproveAttempt struct {
	Round       int
	Tool        string
	Description string
	Reason      string
	Kept        bool
}

// ImproveChange is the word diff of one tool the revised listing changed.
type ImproveChange struct {
	Tool string
	Diff []DiffRun
}

// improveStatusExpr reads job jid's state (the poll while it runs).
func improveStatusExpr(ws, jid string) string {
	return fmt.Sprintf("@get('%s')", wsURL(ws, "tasks/improve/"+jid))
}

// improveStatusName is the status region's state for tests and styles.
func improveStatusName(s ImproveStatus) string {
	switch {
	case s.Running:
		return "running"
	case s.Report != nil && s.Report.Improved:
		return "improved"
	case s.Report != nil:
		return "not-improved"
	case s.Problem != "":
		return "problem"
	}
	return "idle"
}

// heldLine is the held-out accuracy before and after, with its interval and p.
func heldLine(r ImproveReport) string {
	return fmt.Sprintf("Held-out accuracy %d/%d (%s) → %d/%d (%s); difference 95%% interval %s to %s points, McNemar p %s.",
		r.HeldBefore, r.HeldPairs, pct(r.Before), r.HeldAfter, r.HeldPairs, pct(r.After), pctSigned(r.Low), pctSigned(r.High), pValue(r.P))
}

func boolAttr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
