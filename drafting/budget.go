package drafting

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"github.com/tool-workbench/workbench/selection/runner"
)

// Budget bounds the calls one drafting action may make. Take reserves one before a call; a
// budget that is spent refuses with ErrBudget. The zero value refuses everything; a nil
// *Budget allows any number.
type Budget struct {
	mu    sync.Mutex
	max   int
	spent int
}

// MaxCalls bounds the model calls of one drafting action asked from a page or the API: a
// plan over it is refused before any call, saying what to lower. It keeps one click (k=8 with a
// run of 100 samples would be thousands of calls) from spending an endpoint's quota.
const MaxCalls = 200

// NewBudget allows max calls.
func NewBudget(max int) *Budget { return &Budget{max: max} }

// ErrBudget is a call refused because the budget is spent.
var ErrBudget = budgetError{}

type budgetError struct{}

func (budgetError) Error() string {
	return "the call budget is spent; raise it (--max-calls, or the form's budget) to go on"
}

// Take reserves n calls, or none and ErrBudget.
func (b *Budget) Take(n int) error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.spent+n > b.max {
		return ErrBudget
	}
	b.spent += n
	return nil
}

// Spent and Max report the budget.
func (b *Budget) Spent() int {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

// Max is the budget's limit (0 for a nil budget: none).
func (b *Budget) Max() int {
	if b == nil {
		return 0
	}
	return b.max
}

// Left is what remains (a large number for a nil budget).
func (b *Budget) Left() int {
	if b == nil {
		return 1 << 30
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.max - b.spent
}

// Recorder keeps every exchange a drafting action made, key scrubbed by the client, so that
// Recording replays them. It is safe for concurrent use; a nil *Recorder keeps nothing.
type Recorder struct {
	mu sync.Mutex
	xs []runner.Exchange
}

// Add keeps one exchange (those without a request or a status are dropped), its response
// bounded as a run's are (runner.BoundExchange).
func (r *Recorder) Add(x runner.Exchange) {
	if r == nil || len(x.Request) == 0 || x.Status == 0 {
		return
	}
	x = runner.BoundExchange(x)
	r.mu.Lock()
	r.xs = append(r.xs, x)
	r.mu.Unlock()
}

// AddRun keeps a model run's exchanges.
func (r *Recorder) AddRun(run *runner.Run) {
	if r == nil || run == nil {
		return
	}
	for _, c := range run.Calls {
		if c.Exchange != nil {
			r.Add(*c.Exchange)
		}
	}
}

// Recording is what was kept, in the recording format a replay endpoint reads.
func (r *Recorder) Recording(spec runner.Spec) *runner.Recording {
	rec := &runner.Recording{Format: runner.RecordingFormat, Spec: spec, Exchanges: []runner.Exchange{}}
	if r == nil {
		return rec
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	rec.Exchanges = append(rec.Exchanges, r.xs...)
	return rec
}

// Caller is a Model with a budget and a recorder: what the drafting actions call through.
type Caller struct {
	Model  Model
	Budget *Budget
	Record *Recorder
}

// Ask sends one brief: it takes one call from the budget, sends the request and keeps the
// exchange, and returns the answer's text. Errors say what failed (a *runner.CallError, or
// ErrBudget), never with the key.
func (c Caller) Ask(ctx context.Context, b Brief) (string, error) {
	if c.Model == nil {
		return "", errors.New("no endpoint is configured: name one in the endpoints file (or give --base-url) to draft with a model")
	}
	if err := c.Budget.Take(1); err != nil {
		return "", err
	}
	ep := c.Model.Endpoint()
	reply, err := c.Model.Complete(ctx, Request(ep.Model, b), 0, false)
	if err != nil {
		// A cancelled or expired context comes back bare from the client; say which.
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			return "", fmt.Errorf("asking endpoint %q %s: timed out before it answered; allow more time or try later", ep.Name, jobWords(b))
		case errors.Is(err, context.Canceled):
			return "", fmt.Errorf("asking endpoint %q %s: cancelled before it answered", ep.Name, jobWords(b))
		}
		return "", fmt.Errorf("asking endpoint %q %s: %w", ep.Name, jobWords(b), err)
	}
	// The text is read from the exchange, which the client scrubbed of the key, rather than
	// from the parsed completion, which holds whatever the server sent.
	var resp openai.ChatCompletionResponse
	if err := json.Unmarshal(reply.Exchange.Response, &resp); err != nil {
		c.Record.Add(reply.Exchange)
		return "", fmt.Errorf("asking endpoint %q %s: the answer does not read as a chat completion", ep.Name, jobWords(b))
	}
	if len(resp.Choices) == 0 {
		c.Record.Add(reply.Exchange)
		return "", fmt.Errorf("asking endpoint %q %s: the answer has no choices; the endpoint may not serve chat completions", ep.Name, jobWords(b))
	}
	text := resp.Choices[0].Message.Content
	clean := c.unescaped(text)
	x := reply.Exchange
	if clean != text {
		// The recording keeps the text as the caller read it, so a replay (which knows no
		// key) decodes no key either.
		resp.Choices[0].Message.Content = clean
		if r, err := json.Marshal(resp); err == nil {
			x.Response = r
		}
	}
	c.Record.Add(x)
	return clean, nil
}

// unescaped is an answer's text ready for Decode with the key redacted. The text is JSON that
// Decode decodes once more than the client did; the client reads nested text for the key only
// when it is JSON by itself, and a model's answer often is not (a fence, prose around it, cut
// short), so a key the server spelt with escapes inside it ("\u0073k-…", "\/" for a slash) can
// pass the client's redaction still spelt. An answer with
// a backslash is therefore replaced by its JSON object (the one Decode would read), re-encoded
// with its escapes resolved, then redacted. Text past MaxAnswerBytes is left for Decode to
// refuse.
func (c Caller) unescaped(text string) string {
	if !strings.Contains(text, `\`) || len(text) > MaxAnswerBytes {
		return text
	}
	raw, cut := outerObject(stripFence(strings.TrimSpace(text)))
	if raw == nil || cut {
		return c.resolvedRedacted(text)
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber() // numbers as the model wrote them
	var v any
	if d.Decode(&v) != nil {
		return c.resolvedRedacted(text)
	}
	var out bytes.Buffer
	e := json.NewEncoder(&out)
	e.SetEscapeHTML(false)
	if e.Encode(v) != nil {
		return c.resolvedRedacted(text)
	}
	return c.Model.Redact(strings.TrimSuffix(out.String(), "\n"))
}

// resolvedRedacted is for an answer that cannot be re-encoded (cut off, or not JSON): its \uXXXX
// and \/ escapes are resolved by hand and the result redacted. The text is returned as it came
// when that finds no key, so a harmless answer reaches Decode (and its problem) unchanged.
func (c Caller) resolvedRedacted(text string) string {
	plain := resolveEscapes(text)
	if red := c.Model.Redact(plain); red != plain {
		return red
	}
	return text
}

// resolveEscapes resolves the JSON escapes that can spell a key's characters, \uXXXX (surrogate
// pairs joined) and \/, in one pass over s; every other escape (\\, \", \n…) is kept as written,
// so "\\u0073" stays a backslash followed by "u0073".
func resolveEscapes(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '/':
			b.WriteByte('/')
			i++
			continue
		case 'u':
			if r, n := hexRune(s[i:]); n > 0 {
				b.WriteRune(r)
				i += n - 1
				continue
			}
		}
		b.WriteString(s[i : i+2]) // an escape kept as written
		i++
	}
	return b.String()
}

// hexRune reads a \uXXXX escape at the start of s, joined with a \uXXXX low surrogate after a
// high one, and says how many bytes it took (0: not an escape).
func hexRune(s string) (rune, int) {
	read := func(s string) (rune, bool) {
		if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
			return 0, false
		}
		n, err := strconv.ParseUint(s[2:6], 16, 16)
		return rune(n), err == nil
	}
	r, ok := read(s)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(r) {
		if lo, ok := read(s[6:]); ok {
			if j := utf16.DecodeRune(r, lo); j != utf8.RuneError {
				return j, 12
			}
		}
		return utf8.RuneError, 6
	}
	return r, 6
}

// jobWords says what a brief asks, for error messages.
func jobWords(b Brief) string {
	name := ""
	if b.Tool != nil {
		name = " of " + Excerpt(b.Tool.Name)
	}
	switch b.Job {
	case JobRewrite:
		return "for rewrites" + name
	case JobTasks:
		return "for tasks"
	case JobRubric:
		return "for a rubric score" + name
	}
	return "for " + string(b.Job)
}
