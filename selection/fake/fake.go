// Package fake is an OpenAI-compatible chat completions server for tests and benchmarks, with
// no network and no model: it calls the tool that the reference word-overlap ranker ranks first
// for the user's message, and misbehaves on cue.
//
// Cues are written into a task's text in double brackets and removed before ranking:
//
//	[[fail:N]]      answer HTTP 500 to the first N attempts at this exact request
//	[[429:S]]       answer HTTP 429 with Retry-After: S to the first attempt
//	[[slow:D]]      wait D (a Go duration) before answering
//	[[stall:D]]     wait D before answering the first attempt at this exact request only
//	[[badargs]]     call the tool with arguments that are not JSON
//	[[unknown]]     call a tool the listing does not have
//	[[text]]        answer in text, no call
//	[[empty]]       answer with neither text nor a call
//	[[multi]]       call the best two tools at once
//	[[wrong]]       call the second-ranked tool
//	[[first]]       call the tool listed first in the request, whatever the task (order bias)
//	[[flip]]        call the second-ranked tool when the request's seed is odd
//	[[garbage]]     answer HTTP 200 with a body that is not JSON
//	[[echo]]        answer in text that quotes the request's Authorization header
//	[[echo-error]]  answer HTTP 400 with an error message quoting it
package fake

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// Server answers chat completion requests. The zero value is usable.
type Server struct {
	// Delay is added to every answer.
	Delay time.Duration
	// Key, when set, is required as "Authorization: Bearer KEY".
	Key string

	requests atomic.Int64
	mu       sync.Mutex
	attempts map[[32]byte]int
	byTask   map[string]int
	log      []Logged
}

// Logged is one request as it arrived: the user's message and the seed.
type Logged struct {
	User string
	Seed *int
}

// Log returns the requests in the order they arrived.
func (s *Server) Log() []Logged {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Logged(nil), s.log...)
}

// Requests is the number of requests served.
func (s *Server) Requests() int { return int(s.requests.Load()) }

// Calls returns how many requests carried each user message (cues included).
func (s *Server) Calls() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.byTask))
	for k, v := range s.byTask {
		out[k] = v
	}
	return out
}

type request struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	Seed *int `json:"seed"`
}

var cueRE = regexp.MustCompile(`\[\[([a-z0-9-]+)(?::([^\]]*))?\]\]`)

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "fake_error"}})
	w.Write(b)
}

// ServeHTTP answers POST .../chat/completions.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	req, body, ok := readRequest(w, r, s.Key)
	if !ok {
		return
	}
	user := ""
	for _, m := range req.Messages {
		if m.Role == "user" {
			user = m.Content
		}
	}
	attempt := s.record(body, user, req.Seed)
	cues := map[string]string{}
	for _, m := range cueRE.FindAllStringSubmatch(user, -1) {
		cues[m[1]] = m[2]
	}
	task := strings.TrimSpace(cueRE.ReplaceAllString(user, " "))
	if !s.wait(r, cues, attempt) || failOnCue(w, r, cues, attempt) {
		return
	}
	tools, err := toolsOf(req)
	if err != nil {
		writeError(w, http.StatusBadRequest, "a tool is not JSON: "+err.Error())
		return
	}
	msg, finish := answer(r, cues, task, tools, req.Seed)
	resp := map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": len(body) / 4, "completion_tokens": 12, "total_tokens": len(body)/4 + 12},
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

// readRequest reads a chat completion request, or answers the error a real endpoint would: a
// wrong path or method, a wrong key, a body that is not a request.
func readRequest(w http.ResponseWriter, r *http.Request, key string) (req request, body []byte, ok bool) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		writeError(w, http.StatusNotFound, "only POST /chat/completions")
		return req, nil, false
	}
	if key != "" && r.Header.Get("Authorization") != "Bearer "+key {
		writeError(w, http.StatusUnauthorized, "Incorrect API key provided")
		return req, nil, false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		writeError(w, http.StatusBadRequest, "unreadable body")
		return req, nil, false
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "body is not a chat completion request: "+err.Error())
		return req, nil, false
	}
	return req, body, true
}

// record logs a request and returns how many times this exact body has arrived.
func (s *Server) record(body []byte, user string, seed *int) int {
	key := sha256.Sum256(body)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.attempts == nil {
		s.attempts, s.byTask = map[[32]byte]int{}, map[string]int{}
	}
	s.attempts[key]++
	s.byTask[user]++
	s.log = append(s.log, Logged{user, seed})
	return s.attempts[key]
}

// wait sleeps the server's Delay and the cues' [slow] and, on a first attempt, [stall]. It
// returns false if the request was cancelled meanwhile.
func (s *Server) wait(r *http.Request, cues map[string]string, attempt int) bool {
	delay := s.Delay
	if d, ok := cues["slow"]; ok {
		if dd, err := time.ParseDuration(d); err == nil {
			delay += dd
		}
	}
	if d, ok := cues["stall"]; ok && attempt == 1 {
		if dd, err := time.ParseDuration(d); err == nil {
			delay += dd
		}
	}
	if delay <= 0 {
		return true
	}
	t := time.NewTimer(delay)
	select {
	case <-r.Context().Done():
		t.Stop()
		return false
	case <-t.C:
		return true
	}
}

// failOnCue answers the failures the cues ask for ([fail], [429], [echo-error], [garbage]) and
// reports whether it did.
func failOnCue(w http.ResponseWriter, r *http.Request, cues map[string]string, attempt int) bool {
	if n, ok := cues["fail"]; ok {
		if k, _ := strconv.Atoi(n); attempt <= k {
			writeError(w, http.StatusInternalServerError, "the fake server fails on cue")
			return true
		}
	}
	if after, ok := cues["429"]; ok && attempt == 1 {
		w.Header().Set("Retry-After", after)
		writeError(w, http.StatusTooManyRequests, "Rate limit reached, on cue")
		return true
	}
	if _, ok := cues["echo-error"]; ok {
		writeError(w, http.StatusBadRequest, "bad request from "+r.Header.Get("Authorization"))
		return true
	}
	if _, ok := cues["garbage"]; ok {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "<html>gateway says hello</html>")
		return true
	}
	return false
}

// toolsOf reads the request's tools back as MCP tools, for the ranker.
func toolsOf(req request) ([]*listing.Value, error) {
	tools := make([]*listing.Value, 0, len(req.Tools))
	for _, t := range req.Tools {
		params := t.Function.Parameters
		if len(params) == 0 || string(params) == "null" {
			params = json.RawMessage(`{}`)
		}
		b, _ := json.Marshal(struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}{t.Function.Name, t.Function.Description, params})
		v, err := listing.ParseJSON(b)
		if err != nil {
			return nil, err
		}
		tools = append(tools, v)
	}
	return tools, nil
}

// answer is the assistant's message: the ranker's top tool called, unless a cue asks for
// another answer, and its finish reason.
func answer(r *http.Request, cues map[string]string, task string, tools []*listing.Value, seed *int) (map[string]any, string) {
	msg := map[string]any{"role": "assistant", "content": nil}
	var calls []map[string]any
	call := func(i int, name, args string) {
		calls = append(calls, map[string]any{"id": fmt.Sprintf("call_%d", i), "type": "function",
			"function": map[string]any{"name": name, "arguments": args}})
	}
	var top []selection.Scored
	if len(tools) > 0 {
		v := selection.NewRanker(tools).Judge(1, selection.Task{Task: task}, false)
		if v.Winner != nil && v.Winner.Score > 0 {
			top = v.Top
		}
	}
	pick := 0
	if _, ok := cues["wrong"]; ok && len(top) > 1 {
		pick = 1
	}
	if _, ok := cues["flip"]; ok && len(top) > 1 && seed != nil && *seed%2 != 0 {
		pick = 1
	}
	switch {
	case hasCue(cues, "echo"):
		msg["content"] = "your header was " + r.Header.Get("Authorization")
	case hasCue(cues, "empty"):
		msg["content"] = ""
	case hasCue(cues, "first") && len(tools) > 0:
		call(0, tools[0].Get("name").Str, arguments(tools[0], task))
	case hasCue(cues, "text") || len(top) == 0:
		msg["content"] = "No tool fits this request."
	case hasCue(cues, "unknown"):
		call(0, "no_such_tool", "{}")
	case hasCue(cues, "badargs"):
		call(0, top[pick].Name, `{"ticket_id": 45`)
	default:
		call(0, top[pick].Name, arguments(tools[top[pick].Tool], task))
		if hasCue(cues, "multi") && len(top) > 1 {
			call(1, top[1-pick].Name, arguments(tools[top[1-pick].Tool], task))
		}
	}
	if len(calls) == 0 {
		return msg, "stop"
	}
	msg["tool_calls"] = calls
	return msg, "tool_calls"
}

func hasCue(cues map[string]string, name string) bool {
	_, ok := cues[name]
	return ok
}

var numberRE = regexp.MustCompile(`\b\d+\b`)

// arguments fills a tool's required parameters: integers and numbers with the first number in
// the task, strings with their first enum value or a word, booleans with true.
func arguments(tool *listing.Value, task string) string {
	schema := tool.Get("inputSchema")
	props := schema.Get("properties")
	out := map[string]any{}
	req := schema.Get("required")
	if req == nil || req.Kind != listing.Array {
		return "{}"
	}
	num := numberRE.FindString(task)
	if num == "" {
		num = "1"
	}
	for _, r := range req.Items {
		if !r.IsString() {
			continue
		}
		p := props.Get(r.Str)
		switch p.Get("type").Str {
		case "integer", "number":
			out[r.Str] = json.Number(num)
		case "boolean":
			out[r.Str] = true
		case "array":
			out[r.Str] = []any{}
		case "object":
			out[r.Str] = map[string]any{}
		default:
			if e := p.Get("enum"); e != nil && e.Kind == listing.Array && len(e.Items) > 0 && e.Items[0].IsString() {
				out[r.Str] = e.Items[0].Str
			} else {
				out[r.Str] = "example"
			}
		}
	}
	b, _ := json.Marshal(out)
	return string(b)
}
