package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// MaxFixTools bounds the tools of a fix request, below the listing limit of /check: a fix
// re-checks the listing after each round of repairs.
const MaxFixTools = 5000

// fixFields are the members of a fix request.
var fixFields = []string{"listing", "name", "tasks", "rules", "suggested", "ids", "profile"}

// fixResponse is the answer of POST /fix. The listing and the tasks come back in the form they
// were sent in: a JSON value as a JSON value (key order, unknown fields and number spelling
// kept), text as text with only the repaired values rewritten.
type fixResponse struct {
	Listing json.RawMessage `json:"listing"`
	// Tasks is the task file with the expects of renamed tools renamed; absent when no expect
	// changed.
	Tasks   json.RawMessage `json:"tasks,omitempty"`
	Changed bool            `json:"changed"`
	Applied []lint.Repair   `json:"applied"`
	// Suggested are the suggested repairs still on offer that the request did not ask for
	// ("suggested": false); empty when it did.
	Suggested []lint.Repair `json:"suggested"`
	Findings  fixCounts     `json:"findings"`
	// Diff is a unified diff of the listing's text (and of the task file's) as sent.
	Diff string `json:"diff"`
}

type fixCounts struct {
	Before int `json:"before"`
	After  int `json:"after"`
}

// fix answers what `workbench fix` does for the same listing and options: the repaired listing,
// the repairs applied and the diff.
func (a *API) fix(c echo.Context) error {
	req, err := a.read(c, fixFields...)
	if err != nil {
		return err
	}
	name, err := req.str("name", "listing")
	if err != nil {
		return err
	}
	var opt analysis.FixOptions
	if opt.Rules, err = req.stringList("rules", `"rules": ["description-whitespace"]`, fixableRule); err != nil {
		return err
	}
	if opt.IDs, err = req.stringList("ids", `"ids": ["<a repair's id from an earlier answer>"]`, nil); err != nil {
		return err
	}
	if opt.Suggested, err = req.boolean("suggested"); err != nil {
		return err
	}
	// The text's bytes as sent (no line endings translated): the answer rewrites only what the
	// repairs touch.
	l, err := req.listingOf("listing", name, a.opts.Limits, true, false)
	if err != nil {
		return err
	}
	if len(l.Tools) > MaxFixTools {
		// A fix re-checks the listing after each round of repairs: it costs several checks.
		return &Error{Code: CodeTooLarge, Field: "listing", Message: fmt.Sprintf("the listing holds %d tools; /fix repairs up to %d at a time", len(l.Tools), MaxFixTools),
			Hint: "send the tools in parts, or run `workbench fix` on the file"}
	}
	tasks, err := req.tasksOf("tasks")
	if err != nil {
		return err
	}
	profile, err := req.profile()
	if err != nil {
		return err
	}
	lt, err := a.linter("o200k_base", lint.Config{Profile: profile})
	if err != nil {
		return err
	}
	eng, err := analysis.New(analysis.Options{Extended: lt, PlainVerdicts: true, NoCost: true})
	if err != nil {
		return fmt.Errorf("fix: %w", err)
	}
	ctx := c.Request().Context()
	res, err := eng.Fix(ctx, l, tasks, opt)
	if err != nil {
		if ctx.Err() != nil {
			return &Error{Code: CodeUnavailable, Message: "the fix did not finish before the request's deadline", err: err,
				Hint: `fix fewer tools at a time, or fewer rules ("rules"), or run workbench fix on the file`}
		}
		return err
	}
	resp := fixResponse{Applied: res.Applied, Suggested: []lint.Repair{}, Changed: len(res.Applied) > 0,
		Findings: fixCounts{Before: len(res.Before), After: len(res.After)}}
	if resp.Applied == nil {
		resp.Applied = []lint.Repair{}
	}
	if err := fixTexts(req, l, tasks, res, name, &resp); err != nil {
		return err
	}
	if !opt.Suggested {
		more, err := eng.Repairs(ctx, res.Listing, res.Tasks)
		if err != nil {
			return err
		}
		for _, r := range more {
			if r.Kind == lint.FixSuggested && (len(opt.Rules) == 0 || slices.Contains(opt.Rules, r.Rule)) {
				resp.Suggested = append(resp.Suggested, r)
			}
		}
	}
	return c.JSON(http.StatusOK, resp)
}

// fixTexts fills in the fixed listing and tasks, in the form they were sent, and the diff.
func fixTexts(req *request, l *listing.Listing, tasks []selection.Task, res analysis.FixResult, name string, resp *fixResponse) error {
	// A listing sent as a JSON value was parsed from the body with everything before it blanked
	// (request.doc): its text starts where its root does.
	lv := req.get("listing")
	start := 0
	if lv.Kind != listing.String {
		start = l.Doc.Pos
	}
	text, reps := analysis.FixedSource(l, res.Listing)
	for i := range reps {
		reps[i].Offset -= start
	}
	var err error
	if resp.Listing, err = asSent(lv, text[start:]); err != nil {
		return err
	}
	if resp.Diff, err = analysis.UnifiedDiff(l.Source[start:], reps, name); err != nil {
		return err
	}
	tv := req.get("tasks")
	if tv == nil {
		return nil
	}
	tsrc := []byte(tv.Str)
	if tv.Kind != listing.String {
		tsrc = req.src[tv.Pos:valueEnd(req.src, tv.Pos)]
	}
	fixed, treps, err := analysis.FixedTasks(tsrc, tasks, res.Tasks)
	if err != nil || treps == nil {
		return err
	}
	if resp.Tasks, err = asSent(tv, fixed); err != nil {
		return err
	}
	d, err := analysis.UnifiedDiff(tsrc, treps, "tasks")
	resp.Diff += d
	return err
}

// asSent returns text as the answer gives it back: as a JSON value when sent as one, else as
// a JSON string.
func asSent(sent *listing.Value, text []byte) (json.RawMessage, error) {
	if sent.Kind != listing.String {
		return json.RawMessage(text), nil
	}
	b, err := json.Marshal(string(text))
	if err != nil {
		return nil, fmt.Errorf("fix: %w", err)
	}
	return b, nil
}

// fixableRule refuses an ID that is not a rule with a repair, naming those that are.
func fixableRule(id string) (string, bool) {
	var ids []string
	for _, r := range lint.Rules() {
		if r.Fix != lint.FixNone {
			ids = append(ids, r.ID)
		}
	}
	msg := fmt.Sprintf("unknown rule %q", id)
	if r := lint.Lookup(id); r != nil {
		if r.Fix != lint.FixNone {
			return "", true
		}
		msg = fmt.Sprintf("rule %s offers no repair (%s)", id, r.FixNote)
	}
	return msg + "; rules with a repair: " + strings.Join(ids, ", "), false
}

// stringList returns an array of strings member (nil when absent); check, when set, refuses an
// element with the message it returns.
func (r *request) stringList(key, example string, check func(string) (string, bool)) ([]string, error) {
	v := r.get(key)
	if v == nil {
		return nil, nil
	}
	if v.Kind != listing.Array {
		return nil, r.invalid(key, v, "send "+example, "%q must be an array of strings, not a %s", key, v.Kind)
	}
	out := make([]string, 0, len(v.Items))
	for i, it := range v.Items {
		if it.Kind != listing.String {
			return nil, (&Error{Code: CodeInvalidField, Field: key, Pointer: fmt.Sprintf("%s/%d", pointer(key), i),
				Message: fmt.Sprintf("%q must hold strings; element %d is a %s", key, i, it.Kind), Hint: "send " + example}).at(r.src, it.Pos)
		}
		if check != nil {
			if msg, ok := check(it.Str); !ok {
				return nil, (&Error{Code: CodeInvalidField, Field: key, Pointer: fmt.Sprintf("%s/%d", pointer(key), i),
					Message: msg, Hint: "`workbench rules` and the /rules pages give each rule's repair; leave out \"" + key + "\" for every rule"}).at(r.src, it.Pos)
			}
		}
		out = append(out, it.Str)
	}
	return out, nil
}
