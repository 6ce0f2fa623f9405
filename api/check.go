package api

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// checkFields are the members of a check request.
var checkFields = []string{"listing", "name", "tasks", "ignore", "baseline", "merge", "failOn", "tokenizer",
	"maxTools", "maxTokens", "maxDescriptionTokens", "revision"}

// check answers what `workbench check --format json` prints for the same listing and options.
// A failing check is still a 200: the report's "failed" says so, as the CLI's exit code does.
func (a *API) check(c echo.Context) error {
	req, err := a.read(c, checkFields...)
	if err != nil {
		return err
	}
	in, err := a.checkInput(req)
	if err != nil {
		return err
	}
	// The one check engine `workbench check --rules all` uses too.
	r := in.linter.Check(lint.CheckInput{Name: in.name, Listing: in.listing, Tasks: in.tasks, Others: in.others,
		Ignores: in.ignores, Baseline: in.baseline, FailOn: in.failOn, Tokenizer: in.tokenizer}).Report
	var b bytes.Buffer
	if err := lint.WriteJSON(&b, r); err != nil {
		return fmt.Errorf("check: %w", err)
	}
	return c.JSONBlob(http.StatusOK, b.Bytes())
}

// checkInput is everything a check needs, read from the request.
type checkInput struct {
	name      string
	listing   *listing.Listing
	tasks     []selection.Task
	ignores   []lint.Ignore
	baseline  map[string]int
	others    []lint.Named
	failOn    lint.Severity
	tokenizer string
	linter    *lint.Linter
}

func (a *API) checkInput(req *request) (*checkInput, error) {
	in := &checkInput{}
	var err error
	if in.name, err = req.str("name", "listing"); err != nil {
		return nil, err
	}
	fo, err := req.str("failOn", "error", "error", "warning", "info")
	if err != nil {
		return nil, err
	}
	in.failOn, _ = lint.ParseSeverity(fo)
	if in.tokenizer, err = req.str("tokenizer", "o200k_base", "o200k_base", "cl100k_base", "approx"); err != nil {
		return nil, err
	}
	cfg := lint.Config{}
	if cfg.MaxTools, err = req.integer("maxTools", lint.DefaultMaxTools, 1); err != nil {
		return nil, err
	}
	if cfg.MaxListingTokens, err = req.integer("maxTokens", lint.DefaultMaxListingTokens, 1); err != nil {
		return nil, err
	}
	if cfg.MaxDescriptionTokens, err = req.integer("maxDescriptionTokens", lint.DefaultMaxDescriptionTokens, 1); err != nil {
		return nil, err
	}
	if cfg.Revision, err = req.str("revision", lint.DefaultRevision); err != nil {
		return nil, err
	}
	if _, perr := time.Parse("2006-01-02", cfg.Revision); perr != nil {
		return nil, req.invalid("revision", req.get("revision"), `"revision": "`+lint.DefaultRevision+`"`, "revision %q is not a protocol revision (a date)", cfg.Revision)
	}
	if in.linter, err = a.linter(in.tokenizer, cfg); err != nil {
		return nil, err
	}
	// The CLI translates line endings before parsing, as the reference checker (Python's
	// text mode) does; text sent here gets the same treatment so that the report is the same.
	if in.listing, err = req.listingOf("listing", in.name, a.opts.Limits, true, true); err != nil {
		return nil, err
	}
	if in.tasks, err = req.tasksOf("tasks"); err != nil {
		return nil, err
	}
	if len(in.tasks) > 0 && len(in.listing.Tools) == 0 {
		return nil, &Error{Code: CodeInvalidTasks, Field: "tasks", Message: "the listing has no tools to rank the tasks against",
			Hint: "send a listing with tools, or leave out the tasks"}
	}
	if v := req.get("ignore"); v != nil {
		d, err := req.doc("ignore", v)
		if err != nil {
			return nil, err
		}
		if in.ignores, err = lint.ParseIgnores(d.exact); err != nil {
			return nil, &Error{Code: CodeInvalidIgnore, Field: "ignore", Message: err.Error(), err: err,
				Hint: `an ignore list is a JSON array of {"rule", "tool"?, "pointer"?, "reason"}`}
		}
	}
	if v := req.get("baseline"); v != nil {
		d, err := req.doc("baseline", v)
		if err != nil {
			return nil, err
		}
		if in.baseline, err = lint.ParseBaseline(d.exact); err != nil {
			return nil, &Error{Code: CodeInvalidBaseline, Field: "baseline", Message: err.Error(), err: err,
				Hint: "send a previous report of this endpoint (or of workbench check --format json)"}
		}
	}
	in.others = []lint.Named{{Name: in.name, Listing: in.listing}}
	if v := req.get("merge"); v != nil {
		if v.Kind != listing.Array {
			return nil, req.invalid("merge", v, `"merge": [{"name": "other-server", "listing": {...}}]`, `"merge" must be an array, not a %s`, v.Kind)
		}
		if len(v.Items) > MaxMerge {
			// Each listing's positions are read against the whole body: many of them would cost
			// time growing with their square.
			return nil, &Error{Code: CodeTooLarge, Field: "merge", Message: fmt.Sprintf("\"merge\" lists %d servers; the limit is %d", len(v.Items), MaxMerge),
				Hint: "check the servers a host connects together, at most " + strconv.Itoa(MaxMerge) + " at a time"}
		}
		for i, it := range v.Items {
			field := "merge/" + strconv.Itoa(i)
			name, l, err := req.namedListing(field, it, a.opts.Limits)
			if err != nil {
				return nil, err
			}
			in.others = append(in.others, lint.Named{Name: name, Listing: l})
		}
	}
	return in, nil
}

// MaxMerge bounds the other servers' listings one check merges.
const MaxMerge = 64

// namedListing reads {"name": ..., "listing": ...} at field (merge/0).
func (r *request) namedListing(field string, v *listing.Value, lim listing.Limits) (string, *listing.Listing, error) {
	bad := func(at *listing.Value, format string, args ...any) error {
		return (&Error{Code: CodeInvalidField, Field: field, Pointer: "/" + field, Message: fmt.Sprintf(format, args...),
			Hint: `each entry is {"name": "other-server", "listing": {...}}`}).at(r.src, at.Pos)
	}
	if v.Kind != listing.Object {
		return "", nil, bad(v, "%s must be an object, not a %s", field, v.Kind)
	}
	for _, m := range v.Members {
		if m.Key != "name" && m.Key != "listing" {
			return "", nil, (&Error{Code: CodeUnknownField, Field: field, Pointer: "/" + field + pointer(m.Key),
				Message: fmt.Sprintf("unknown member %q in %s", m.Key, field), Hint: `each entry is {"name", "listing"}`}).at(r.src, m.KeyPos)
		}
	}
	name := v.Get("name")
	if !name.IsString() || name.Str == "" {
		return "", nil, bad(v, "%s needs a non-empty string \"name\": how findings call that server", field)
	}
	lv := v.Get("listing")
	if lv == nil || lv.Kind == listing.Null {
		return "", nil, (&Error{Code: CodeMissingField, Field: field + "/listing", Pointer: "/" + field + "/listing",
			Message: fmt.Sprintf("%s has no \"listing\"", field), Hint: `each entry is {"name", "listing"}`}).at(r.src, v.Pos)
	}
	l, err := r.parseListing(field+"/listing", lv, name.Str, lim, true)
	return name.Str, l, err
}

// linter returns a linter for one option set, shared between requests so that its per-tool
// caches serve repeated checks of the same tools.
func (a *API) linter(tokenizer string, cfg lint.Config) (*lint.Linter, error) {
	key := fmt.Sprintf("%s|%d|%d|%d|%s", tokenizer, cfg.MaxTools, cfg.MaxListingTokens, cfg.MaxDescriptionTokens, cfg.Revision)
	a.mu.Lock()
	lt := a.linters[key]
	a.mu.Unlock()
	if lt != nil {
		return lt, nil
	}
	if tokenizer != "approx" {
		tok, err := cost.NewTokenizer(tokenizer)
		if err != nil {
			return nil, fmt.Errorf("check: %w", err)
		}
		cfg.Tokens = tok.Count
	}
	lt = lint.New(cfg)
	a.mu.Lock()
	if len(a.linters) < maxEngines {
		a.linters[key] = lt
	}
	a.mu.Unlock()
	return lt, nil
}
