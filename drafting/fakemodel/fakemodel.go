// Package fakemodel is an OpenAI-compatible chat completions server for the drafting tests and
// demos, in process (served through runner.HandlerDoer), with no network and no model.
//
// A request with tools is a tool choice: it goes to an embedded selection/fake.Server, which
// calls the tool the word-overlap ranker ranks first (and honours that server's cues). A request
// without tools is a drafting request: the server reads its brief (drafting.ReadBrief) and
// answers the job as its Mode says:
//
//	Good         plain, informative rewrites built from the brief (or the canned Rewrites),
//	             tasks of every kind, a rubric score derived from the text
//	Promotional  rewrites that add promotional and model-directed wording
//	Malformed    answers that are not the JSON asked for (Bad picks how)
//	Stuffing     rewrites that append every content word of the tasks the tool should win
//	Echo         rewrites and reasons that quote the request's Authorization header
//
// Delay slows every drafting answer, honouring the request's cancellation. Requests and Briefs
// let a test check what was asked, and that the held-out tasks never appeared in a prompt.
package fakemodel

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/selection/fake"
	"github.com/tool-workbench/workbench/selection/runner"
)

// Mode is how the server answers drafting requests.
type Mode int

// The modes.
const (
	Good Mode = iota
	Promotional
	Malformed
	Stuffing
	Echo
)

// Bad is how a Malformed server answers.
type Bad int

// The malformations. BadCycle, the zero value, takes them in turn, one per drafting request.
const (
	BadCycle Bad = iota
	BadText      // prose, no JSON object
	BadShape     // valid JSON of the wrong shape
	BadEmpty     // the right shape with nothing in it
)

// Server answers chat completion requests. The zero value is a Good model.
type Server struct {
	Mode Mode
	Bad  Bad
	// Delay is waited before every drafting answer (tool choices wait Chooser.Delay).
	Delay time.Duration
	// Rewrites are the descriptions a Good server proposes for a tool, by tool name, instead
	// of those it would build from the brief.
	Rewrites map[string][]string
	// Params are parameter descriptions added to every candidate of a rewrite that asks for
	// parameters, over those the server writes (a name the schema lacks tests the product's
	// refusal to invent schema).
	Params map[string]string
	// Key, when set, is required of every request as "Authorization: Bearer KEY".
	Key string
	// Chooser answers the requests that carry tools.
	Chooser fake.Server

	requests atomic.Int64
	mu       sync.Mutex
	briefs   []drafting.Brief
}

// Requests is the number of requests that arrived, drafting and tool choice alike.
func (s *Server) Requests() int { return int(s.requests.Load()) }

// Briefs returns the drafting briefs received, in order.
func (s *Server) Briefs() []drafting.Brief {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]drafting.Brief(nil), s.briefs...)
}

// maxBody bounds a request body, as the tool-choice fake does.
const maxBody = 64 << 20

// ServeHTTP answers POST .../chat/completions.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		writeError(w, http.StatusNotFound, "only POST /chat/completions")
		return
	}
	if s.Key != "" && r.Header.Get("Authorization") != "Bearer "+s.Key {
		writeError(w, http.StatusUnauthorized, "Incorrect API key provided")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		writeError(w, http.StatusBadRequest, "unreadable body")
		return
	}
	var req openai.ChatCompletionRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "body is not a chat completion request: "+err.Error())
		return
	}
	if len(req.Tools) > 0 {
		// The chooser counts and reads the request itself.
		r.Body = io.NopCloser(bytes.NewReader(body))
		s.Chooser.ServeHTTP(w, r)
		return
	}
	b, err := drafting.ReadBrief(req)
	if err != nil {
		writeError(w, http.StatusBadRequest, "a request without tools must carry a drafting brief: "+err.Error())
		return
	}
	n := s.record(b)
	if !s.wait(r) {
		return
	}
	content := s.answer(b, n, r.Header.Get("Authorization"))
	resp := map[string]any{
		"id": "chatcmpl-fakemodel", "object": "chat.completion", "created": 0, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}},
		"usage": map[string]any{"prompt_tokens": len(body) / 4, "completion_tokens": len(content) / 4,
			"total_tokens": (len(body) + len(content)) / 4},
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

// record keeps a brief and returns how many drafting requests came before it.
func (s *Server) record(b drafting.Brief) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.briefs = append(s.briefs, b)
	return len(s.briefs) - 1
}

// wait sleeps Delay, or returns false if the request is cancelled first.
func (s *Server) wait(r *http.Request) bool {
	if s.Delay <= 0 {
		return true
	}
	t := time.NewTimer(s.Delay)
	defer t.Stop()
	select {
	case <-r.Context().Done():
		return false
	case <-t.C:
		return true
	}
}

// answer is the assistant's text for brief b, the n-th drafting request.
func (s *Server) answer(b drafting.Brief, n int, auth string) string {
	if s.Mode == Malformed {
		bad := s.Bad
		if bad == BadCycle {
			bad = BadText + Bad(n%3)
		}
		return malformed(b.Job, bad)
	}
	var v any
	switch b.Job {
	case drafting.JobRewrite:
		v = s.rewrites(b, auth)
	case drafting.JobTasks:
		v = tasks(b)
	case drafting.JobRubric:
		v = rubric(b, s.Mode == Echo, auth)
	default:
		return "I do not know the job " + string(b.Job) + "."
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// malformed is an answer that is not what job asked for, the way bad says.
func malformed(job drafting.Job, bad Bad) string {
	switch bad {
	case BadShape:
		switch job {
		case drafting.JobRewrite:
			return `{"candidates": "I rewrote the description above; see my reasoning."}`
		case drafting.JobTasks:
			return `{"tasks": {"plain": "Show me a ticket"}}`
		}
		return `{"scores": [4, 5, 3]}`
	case BadEmpty:
		switch job {
		case drafting.JobRewrite:
			return `{"candidates": []}`
		case drafting.JobTasks:
			return `{"tasks": []}`
		}
		return `{"scores": {}}`
	}
	return "Sure! Here are some ideas for a better description: make it clearer, mention when to use it, " +
		"and keep it short. Let me know if you want more."
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "fake_error"}})
	w.Write(b)
}

// KeyEnv is the environment variable NewClient's endpoint names for a server with a Key.
const KeyEnv = "FAKEMODEL_KEY"

// NewClient is a runner.Client on s, in process: endpoint "fake", model "fake-model", and, when
// s has a Key, that key as the endpoint's (read through opts.Getenv when it is set). Retries,
// timeout and concurrency are opts'.
func NewClient(s *Server, opts runner.ClientOptions) (*runner.Client, error) {
	ep := runner.Endpoint{Name: "fake", BaseURL: "http://fake/v1", Model: "fake-model"}
	if s.Key != "" {
		ep.APIKeyEnv = KeyEnv
		if opts.Getenv == nil {
			key := s.Key
			opts.Getenv = func(string) string { return key }
		}
	}
	opts.HTTP = runner.HandlerDoer{Handler: s}
	return runner.NewClient(ep, opts)
}
