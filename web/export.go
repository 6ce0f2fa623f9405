package web

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/tool-workbench/workbench/export"
	"github.com/tool-workbench/workbench/views"
)

// goPackage is what the package field may hold: a Go identifier (export.Go checks the rest,
// such as keywords).
var goPackage = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)

// exportFile answers the export menu's forms: the current revision as listing JSON, Go code
// or a review report against the baseline. Download and Copy fetch the same URL; Copy asks for
// errors as plain text (Accept: text/plain) to show them in the menu.
func (s *Server) exportFile(c echo.Context) error {
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	// Copy asks for plain text; Download gets the error page.
	fail := func(k Kind, msg string) error {
		if strings.HasPrefix(c.Request().Header.Get("Accept"), "text/plain") {
			return c.String(k.Status(), msg)
		}
		return &Error{Kind: k, Msg: msg}
	}
	q := c.QueryParams()
	var (
		body     []byte
		ctype    string
		filename string
	)
	switch f := q.Get("format"); f {
	case "json", "":
		shape, style := q.Get("shape"), q.Get("compact")
		if shape != "" && shape != "result" && shape != "bare" {
			return fail(BadRequest, fmt.Sprintf("unknown JSON shape %q: use result (the tools/list result) or bare (an array of tools)", shape))
		}
		body = export.JSON(ws.Listing, export.JSONOptions{Bare: shape == "bare", Compact: style == "1" || style == "true"})
		ctype, filename = "application/json", "listing.json"
		if shape == "bare" {
			filename = "tools.json"
		}
	case "go":
		pkg := strings.TrimSpace(q.Get("package"))
		main := q.Get("main") == "1" || q.Get("main") == "true"
		if pkg != "" && !goPackage.MatchString(pkg) {
			return fail(BadRequest, "the package name must be a Go identifier (letters, digits and _, not starting with a digit), such as tools")
		}
		// The menu checks this as it is typed (app.js); a request made otherwise hears the same.
		if main && pkg != "" && pkg != "main" {
			return fail(BadRequest, fmt.Sprintf("with “main” the file is a runnable server, whose package is main, not %s: clear the package name, or untick “with main”", pkg))
		}
		var goErr error
		body, _, goErr = export.Go(ws.Listing, export.GoOptions{Package: pkg, Main: main, Source: "workspace " + ws.Name})
		if goErr != nil {
			var ge *export.GoError
			if errors.As(goErr, &ge) {
				return fail(Unprocessable, ge.Error())
			}
			return fail(BadRequest, "the Go export failed: "+goErr.Error())
		}
		ctype, filename = "text/x-go; charset=utf-8", "tools.go"
		if main {
			filename = "main.go"
		}
	case "review":
		tasks := ws.Tasks
		if len(tasks) == 0 {
			tasks = nil
		}
		eng, err := s.engineFor(s.profileOf(c.Request().Context(), ws.ID)) // the page's findings, the review's
		if err != nil {
			return fmt.Errorf("review export: %w", err)
		}
		opts, err := eng.ReviewOptions(c.Request().Context(), tasks)
		if err != nil {
			return fmt.Errorf("review export: %w", err)
		}
		if tasks == nil {
			opts.RankingNote = "the workspace has no tasks"
		}
		opts.BaselineName, opts.CurrentName = ws.Name+" as imported", ws.Name+" now"
		if body, err = export.Review(ws.Baseline, ws.Listing, opts); err != nil {
			return fail(Unprocessable, "the review could not be written: "+err.Error())
		}
		sec, err := s.reviewSection(c.Request().Context(), ws.ID) // the threads and sign-offs
		if err != nil {
			return err
		}
		body = append(body, sec...)
		ctype, filename = "text/markdown; charset=utf-8", "review.md"
	default:
		return fail(BadRequest, fmt.Sprintf("unknown export format %q: use json, go or review", f))
	}
	h := c.Response().Header()
	h.Set("Content-Disposition", `attachment; filename="`+filename+`"`)
	h.Set("Cache-Control", "no-store")
	return c.Blob(http.StatusOK, ctype, body)
}

// exportNotes patches the Go export's warnings for the current revision into the export menu.
func (s *Server) exportNotes(c echo.Context) error {
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	n := goNotes(ws)
	sse := newSSE(c)
	_ = sse.PatchElementTempl(views.ExportNotesRegion(&n))
	return nil
}

func goNotes(ws Workspace) views.ExportNotes {
	var n views.ExportNotes
	_, warns, err := export.Go(ws.Listing, export.GoOptions{})
	if err != nil {
		var ge *export.GoError
		if errors.As(err, &ge) {
			for i, p := range ge.Problems {
				if i == 20 {
					n.Problems = append(n.Problems, fmt.Sprintf("and %d more", len(ge.Problems)-i))
					break
				}
				n.Problems = append(n.Problems, fmt.Sprintf("tool %q at %s: %s", p.Tool, p.Pointer, p.Msg))
			}
			return n
		}
		n.Error = "The Go export failed: " + err.Error()
		return n
	}
	byKind := map[export.Difference]*views.GoNote{}
	seen := map[export.Difference]map[string]bool{}
	var order []export.Difference
	for _, w := range warns {
		g := byKind[w.Kind]
		if g == nil {
			sum := w.Kind.Summary()
			if sum == "" {
				sum = string(w.Kind)
			}
			g = &views.GoNote{Kind: string(w.Kind), Summary: sum, Example: w.String()}
			byKind[w.Kind] = g
			seen[w.Kind] = map[string]bool{}
			order = append(order, w.Kind)
		}
		if w.Tool == "" || seen[w.Kind][w.Tool] {
			continue
		}
		seen[w.Kind][w.Tool] = true
		if len(g.Tools) < 5 {
			g.Tools = append(g.Tools, w.Tool)
		} else {
			g.More++
		}
	}
	for _, k := range order {
		n.Notes = append(n.Notes, *byKind[k])
	}
	return n
}

func (s *Server) downloadListing(c echo.Context) error {
	ws, err := s.getWS(c)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Content-Disposition", `attachment; filename="listing.json"`)
	return c.Blob(http.StatusOK, "application/json", append(ws.Listing.Marshal("  "), '\n'))
}
