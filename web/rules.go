package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/views"
)

// rules renders every rule's documentation; findings link to its anchors.
func (s *Server) rules(c echo.Context) error {
	var docs []views.RuleDoc
	for _, r := range lint.Rules() {
		docs = append(docs, views.RuleDoc{ID: r.ID, Category: string(r.Category), Severity: string(r.Severity),
			Scope: string(r.Scope), Summary: r.Summary, What: r.What, Why: r.Why, Seed: r.Seed, Bad: r.Bad, Good: r.Good,
			Fix: string(r.Fix), FixNote: r.FixNote})
	}
	docs = append(docs, views.RuleDoc{ID: "reference-input", Category: "schema", Severity: "error", Scope: "tool",
		Summary: "a value the reference checker cannot read",
		What:    "A description, title, inputSchema or parameter field of a type the reference checker does not expect (a description that is a number, an inputSchema that is a string), or text with a lone surrogate escape.",
		Why:     "The reference checker stops with an exception on such input, so its other checks cannot run on the tool; hosts are as likely to choke on it.",
		Bad:     `"description": 42`, Good: `"description": "Return one book's record by its id."`,
		Fix: string(lint.FixNone), FixNote: "what the value should have been is a person's call"})
	p := s.page
	p.Title = "Rules · Tool Workbench"
	return htmlPage(c, http.StatusOK, views.RulesPage(p, docs))
}
