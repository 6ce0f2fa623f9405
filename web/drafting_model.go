package web

import "github.com/tool-workbench/workbench/drafting"

// noEndpoint says how a server gets a model endpoint.
const noEndpoint = "No model endpoint is configured on this server; start it with --endpoints FILE"

// DraftingModel returns the shared client of the configured endpoint name ("" for the first
// one), or nil and why there is none in words for the person who asked. The JSON API drafts
// through it (api.Options.Models): the same clients as the Runs tab, so that one endpoint's
// bound on calls in flight holds across runs, pages and API requests alike.
func (s *Server) DraftingModel(name string) (drafting.Model, string) {
	eps := s.runs.Endpoints()
	if len(eps) == 0 {
		return nil, noEndpoint
	}
	if name == "" {
		name = eps[0].Name
	}
	c, why := s.runs.Client(name)
	if c == nil {
		return nil, why // a nil *runner.Client must not become a non-nil Model
	}
	return c, ""
}
