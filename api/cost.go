package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/cost"
)

var costFields = []string{"listing", "name", "tokenizer", "render", "context", "model", "toolChoice", "baseline"}

// cost answers what `workbench cost --format json` prints. The tokenizer is one of
// Options.Tokenizers by name: a tokenizer file path would let a client make the server read its
// files.
func (a *API) cost(c echo.Context) error {
	req, err := a.read(c, costFields...)
	if err != nil {
		return err
	}
	name, err := req.str("name", "listing")
	if err != nil {
		return err
	}
	tokName, err := req.str("tokenizer", "o200k_base", a.opts.Tokenizers.Names()...)
	if err != nil {
		return err
	}
	render, err := req.str("render", "compact", cost.RenderingNames()...)
	if err != nil {
		return err
	}
	contextN, err := req.integer("context", 0, 0)
	if err != nil {
		return err
	}
	model, err := req.str("model", "")
	if err != nil {
		return err
	}
	choice, err := req.str("toolChoice", "", "auto", "none", "any", "tool")
	if err != nil {
		return err
	}
	counter, err := a.counter(tokName, render, cost.Options{Model: model, ToolChoice: choice})
	if err != nil {
		return err
	}
	l, err := req.listingOf("listing", name, a.opts.Limits, true, false)
	if err != nil {
		return err
	}
	base, err := req.listingOf("baseline", "baseline", a.opts.Limits, false, false)
	if err != nil {
		return err
	}
	rep, err := counter.ListingContext(c.Request().Context(), l)
	if err != nil {
		return err
	}
	rep.SetContext(contextN)
	if base != nil {
		brep, err := counter.ListingContext(c.Request().Context(), base)
		if err != nil {
			return err
		}
		if err := rep.Compare(brep); err != nil {
			return fmt.Errorf("cost: %w", err)
		}
	}
	b, err := costJSON(rep)
	if err != nil {
		return err
	}
	return c.JSONBlob(http.StatusOK, b)
}

// costJSON encodes a report as `workbench cost --format json` does (cmd/workbench/cost.go).
func costJSON(rep cost.Report) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		return nil, fmt.Errorf("encoding the cost report: %w", err)
	}
	return b.Bytes(), nil
}

// counter returns a cost counter for one option set, shared between requests.
func (a *API) counter(tokName, render string, opts cost.Options) (*cost.Counter, error) {
	key := fmt.Sprintf("%s|%s|%s|%s", tokName, render, opts.Model, opts.ToolChoice)
	a.mu.Lock()
	ct := a.counters[key]
	a.mu.Unlock()
	if ct != nil {
		return ct, nil
	}
	tok, err := a.opts.Tokenizers.Get(tokName)
	if err != nil {
		return nil, fmt.Errorf("cost: %w", err)
	}
	opts.Cache = a.cache
	ct, err = cost.NewCounter(tok, render, opts)
	if err != nil {
		// What remains wrong here is the model: the other options were checked by name.
		return nil, &Error{Code: CodeInvalidField, Field: "model", Pointer: "/model", Message: err.Error(), err: err,
			Hint: "openai takes gpt-4o, gpt-4o-mini, gpt-4 or gpt-3.5-turbo; anthropic a Claude model id; other renderings no model"}
	}
	a.mu.Lock()
	if len(a.counters) < maxEngines {
		a.counters[key] = ct
	}
	a.mu.Unlock()
	return ct, nil
}
