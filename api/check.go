package api

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// checkFields are the members of a check request.
var checkFields = []string{"listing", "name", "tasks", "ignore", "baseline", "merge", "failOn", "tokenizer",
	"maxTools", "maxTokens", "maxDescriptionTokens", "revision", "profile", "damage", "minDrop", "orderBias", "overlap"}

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
	extras, err := req.extrasOf()
	if err != nil {
		return err
	}
	// The engine the browser and `workbench check` use, over this option set's shared linter.
	// It counts the listing as the Cost tab does, unless the tokens are estimated (approx).
	tokName, approx := in.tokenizer, in.tokenizer == "approx"
	if approx {
		tokName = "o200k_base" // never used: the engine counts no tokens
	}
	opts := analysis.Options{Tokenizer: tokName, Extended: in.linter, PlainVerdicts: true, NoCost: approx}
	if !approx {
		if opts.Tok, err = a.opts.Tokenizers.Get(tokName); err != nil {
			return fmt.Errorf("check: %w", err)
		}
	}
	eng, err := analysis.New(opts)
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	checked, err := eng.Check(c.Request().Context(), analysis.CheckInput{Name: in.name, Listing: in.listing, Tasks: in.tasks,
		Others: in.others, OthersAt: in.othersAt, Ignores: in.ignores, Baseline: in.baseline, FailOn: in.failOn, Tokenizer: in.tokenizer})
	if err != nil {
		return err
	}
	if err := checked.Report.AddExtras(c.Request().Context(), in.listing, in.tasks, extras); err != nil {
		return fmt.Errorf("check: %w", err)
	}
	var b bytes.Buffer
	if err := analysis.WriteJSON(&b, checked.Report); err != nil {
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
	othersAt  []lint.Origin // where each of others starts in the request body
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
	if in.tokenizer, err = req.str("tokenizer", "o200k_base", append(slices.Clone(a.opts.Tokenizers.Names()), "approx")...); err != nil {
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
	if cfg.Profile, err = req.profile(); err != nil {
		return nil, err
	}
	// Without a "revision", a profile's revision applies, or the default.
	if cfg.Revision, err = req.str("revision", ""); err != nil {
		return nil, err
	}
	if _, perr := time.Parse("2006-01-02", cfg.Revision); perr != nil && req.get("revision") != nil {
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
	in.othersAt = []lint.Origin{{}} // the checked listing is located as parsed
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
		at := &bodyCursor{src: req.src, line: 1, col: 1}
		for i, it := range v.Items {
			field := "merge/" + strconv.Itoa(i)
			name, l, origin, err := req.namedListing(field, it, a.opts.Limits, at)
			if err != nil {
				return nil, err
			}
			in.others = append(in.others, lint.Named{Name: name, Listing: l})
			in.othersAt = append(in.othersAt, origin)
		}
	}
	return in, nil
}

// MaxMerge bounds the other servers' listings one check merges.
const MaxMerge = 64

// namedListing reads {"name": ..., "listing": ...} at field (merge/0), and returns where the
// listing's text starts in the request body when it is sent as a JSON value. It parses the
// listing's own bytes, so that many listings after a long prefix cost time and memory linear
// in the body (request.doc copies the body up to each value), and at finds the line and column
// of each start in one sweep over the body.
func (r *request) namedListing(field string, v *listing.Value, lim listing.Limits, at *bodyCursor) (string, *listing.Listing, lint.Origin, error) {
	bad := func(at *listing.Value, format string, args ...any) error {
		return (&Error{Code: CodeInvalidField, Field: field, Pointer: "/" + field, Message: fmt.Sprintf(format, args...),
			Hint: `each entry is {"name": "other-server", "listing": {...}}`}).at(r.src, at.Pos)
	}
	if v.Kind != listing.Object {
		return "", nil, lint.Origin{}, bad(v, "%s must be an object, not a %s", field, v.Kind)
	}
	for _, m := range v.Members {
		if m.Key != "name" && m.Key != "listing" {
			return "", nil, lint.Origin{}, (&Error{Code: CodeUnknownField, Field: field, Pointer: "/" + field + pointer(m.Key),
				Message: fmt.Sprintf("unknown member %q in %s", m.Key, field), Hint: `each entry is {"name", "listing"}`}).at(r.src, m.KeyPos)
		}
	}
	name := v.Get("name")
	if !name.IsString() || name.Str == "" {
		return "", nil, lint.Origin{}, bad(v, "%s needs a non-empty string \"name\": how findings call that server", field)
	}
	lv := v.Get("listing")
	if lv == nil || lv.Kind == listing.Null {
		return "", nil, lint.Origin{}, (&Error{Code: CodeMissingField, Field: field + "/listing", Pointer: "/" + field + "/listing",
			Message: fmt.Sprintf("%s has no \"listing\"", field), Hint: `each entry is {"name", "listing"}`}).at(r.src, v.Pos)
	}
	lfield := field + "/listing"
	if lv.Kind != listing.Object && lv.Kind != listing.Array {
		l, err := r.parseListing(lfield, lv, name.Str, lim, true) // text: positions are its own
		return name.Str, l, lint.Origin{}, err
	}
	exact := r.src[lv.Pos:valueEnd(r.src, lv.Pos)]
	origin := at.moveTo(lv.Pos)
	l, err := listing.Parse(exact, listing.Options{Name: name.Str, Limits: lim})
	if err != nil {
		return "", nil, origin, shiftError(listingError(err, lfield, exact), origin)
	}
	if ptr, deep := tooDeep(l.Doc, maxDepth); deep != nil {
		return "", nil, origin, shiftError((&Error{Code: CodeTooLarge, Field: lfield, Pointer: ptr,
			Message: fmt.Sprintf("%s nests deeper than %d levels", lfield, maxDepth),
			Hint:    "real tool listings nest a dozen levels or so; flatten the schema (use $defs and $ref)"}).at(exact, deep.Pos), origin)
	}
	return name.Str, l, origin, nil
}

// shiftError moves the line and column of e, found in a text that starts at o, to the request
// body.
func shiftError(e *Error, o lint.Origin) *Error {
	if e.Line == 0 {
		return e
	}
	if e.Line == 1 {
		e.Column += o.Column - 1
	}
	e.Line += o.Line - 1
	return e
}

// bodyCursor walks a request body forward, keeping the line and column (in characters, as
// listing.Position counts them) of its offset.
type bodyCursor struct {
	src            []byte
	off, line, col int
}

// moveTo advances to off (at or after the cursor) and returns its line and column.
func (c *bodyCursor) moveTo(off int) lint.Origin {
	for c.off < off && c.off < len(c.src) {
		b := c.src[c.off]
		switch {
		case b == '\n':
			c.line, c.col = c.line+1, 1
			c.off++
		case b < utf8.RuneSelf:
			c.col++
			c.off++
		default:
			_, size := utf8.DecodeRune(c.src[c.off:])
			c.col++
			c.off += size
		}
	}
	return lint.Origin{Line: c.line, Column: c.col}
}

// profile returns the "profile" member, a name of lint.Profiles; "" when absent. An unknown
// name is refused with the valid ones.
func (r *request) profile() (string, error) {
	return r.str("profile", "", lint.ProfileNames()...)
}

// linter returns a linter for one option set, shared between requests so that its per-tool
// caches serve repeated checks of the same tools.
func (a *API) linter(tokenizer string, cfg lint.Config) (*lint.Linter, error) {
	key := fmt.Sprintf("%s|%d|%d|%d|%s|%s", tokenizer, cfg.MaxTools, cfg.MaxListingTokens, cfg.MaxDescriptionTokens, cfg.Revision, cfg.Profile)
	a.mu.Lock()
	lt := a.linters[key]
	a.mu.Unlock()
	if lt != nil {
		return lt, nil
	}
	if tokenizer != "approx" {
		tok, err := a.opts.Tokenizers.Get(tokenizer)
		if err != nil {
			return nil, fmt.Errorf("check: %w", err)
		}
		cfg.Tokens = tok.Count
	}
	cfg.Cache = a.cache
	lt = lint.New(cfg)
	a.mu.Lock()
	if len(a.linters) < maxEngines {
		a.linters[key] = lt
	}
	a.mu.Unlock()
	return lt, nil
}
