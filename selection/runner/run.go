package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// DefaultSystemPrompt is sent before each task unless a run gives its own. It tells the model
// that answering without a tool is allowed, so tasks that expect no tool measure something.
const DefaultSystemPrompt = "You are an assistant that can call tools. If one of the tools fits the user's request, call it with the arguments the request supports. If no tool fits, answer in plain text without calling a tool."

// MaxSamples bounds the samples per task.
const MaxSamples = 1000

// Spec is what a run holds fixed: the settings that, with the listing and the tasks, make up
// each request.
type Spec struct {
	Endpoint     string  `json:"endpoint"`
	Model        string  `json:"model"`
	Samples      int     `json:"samples"`
	Temperature  float64 `json:"temperature"`
	Seed         *int64  `json:"seed,omitempty"` // sample i sends Seed+i; nil sends none
	SystemPrompt string  `json:"systemPrompt"`
	// Shuffle sends the tools in a different order for each sample (drawn from Seed, the task
	// and the sample), to expose a preference for the first tools listed.
	Shuffle bool `json:"shuffle"`
}

// Recorded says whether a recording's Spec holds the settings its requests were made with: a
// run's does; an endpoint's "record" (RecordFile), which keeps asks made with many settings, has
// no samples and holds none.
func (s Spec) Recorded() bool { return s.Samples > 0 }

func (s Spec) validate() error {
	if s.Samples < 1 || s.Samples > MaxSamples {
		return fmt.Errorf("samples %d is out of range; give 1 to %d", s.Samples, MaxSamples)
	}
	if math.IsNaN(s.Temperature) || s.Temperature < 0 || s.Temperature > 2 {
		return fmt.Errorf("temperature %v is out of range; give 0 to 2", s.Temperature)
	}
	return nil
}

// Outcome is what one call came to.
type Outcome string

// The outcomes.
const (
	OutTool  Outcome = "tool"  // the model called a tool (the first one counts)
	OutText  Outcome = "text"  // it answered in text only
	OutNone  Outcome = "none"  // it answered with neither text nor a call
	OutError Outcome = "error" // the call failed after its retries
)

// NoTool is the choice recorded when no tool was called, in results and confusion matrices.
const NoTool = "(none)"

// Usage is the endpoint's token count for one call.
type Usage struct {
	Prompt     int `json:"prompt"`
	Completion int `json:"completion"`
	Total      int `json:"total"`
}

// Call is one finished call: one sample of one task.
type Call struct {
	Task    int     `json:"task"` // 0-based index in the task file
	Sample  int     `json:"sample"`
	Outcome Outcome `json:"outcome"`
	// Tool is the first tool called, as the model named it; Known says whether the listing
	// has a tool by that name.
	Tool  string `json:"tool,omitempty"`
	Known bool   `json:"known,omitempty"`
	// Position is the 0-based place of the chosen tool in the order sent (-1 if none).
	Position  int      `json:"position"`
	Arguments string   `json:"arguments,omitempty"` // as the model wrote them, key redacted, cut at MaxArgumentsBytes ("…")
	Args      ArgCheck `json:"args,omitzero"`
	ToolCalls int      `json:"toolCalls"` // how many calls the answer held
	Text      string   `json:"text,omitempty"`
	Usage     Usage    `json:"usage,omitzero"`
	LatencyMS float64  `json:"latencyMs"`
	Attempts  int      `json:"attempts"`
	Cached    bool     `json:"cached,omitempty"`
	Error     string   `json:"error,omitempty"`
	Status    int      `json:"status,omitempty"`
	Hash      string   `json:"hash,omitempty"`
	// Exchange is the raw request and response, key scrubbed: the material of a recording.
	Exchange *Exchange `json:"exchange,omitempty"`
}

// Choice is the call's choice as scored: the tool's name, or NoTool.
func (c Call) Choice() string {
	if c.Outcome == OutTool {
		return c.Tool
	}
	return NoTool
}

// Header is what a run file starts with: everything needed to score, compare and resume it.
type Header struct {
	Kind        string           `json:"kind"` // "run"
	Version     int              `json:"version"`
	Spec        Spec             `json:"spec"`
	ListingHash string           `json:"listingHash"`
	TasksHash   string           `json:"tasksHash"`
	Tools       []string         `json:"tools"`
	Tasks       []selection.Task `json:"tasks"`
	// EstimatedTokens is the offline estimate of the tools' prompt tokens, when one was given.
	EstimatedTokens *int   `json:"estimatedTokens,omitempty"`
	EstimateMethod  string `json:"estimateMethod,omitempty"`
	Started         string `json:"started"`
}

// Run is a run's header and its finished calls, ordered by task, then sample.
type Run struct {
	Header Header `json:"header"`
	Calls  []Call `json:"calls"`
}

// Progress reports a run's advance after each finished call.
type Progress struct {
	Done    int   `json:"done"`
	Total   int   `json:"total"`
	Errors  int   `json:"errors"`
	Cached  int   `json:"cached"`
	Resumed int   `json:"resumed"` // calls kept from an earlier attempt at the run
	Call    *Call `json:"call,omitempty"`
}

// Options are a run's parts besides the listing and the tasks.
type Options struct {
	Spec Spec
	// Resume holds an earlier attempt at the same run: its finished calls are kept, its failed
	// ones tried again.
	Resume *Run
	// Start receives the run's header before the first call (to create a run file); an error
	// stops the run before it sends anything.
	Start func(Header) error
	// Sink receives each finished call as it completes (a run file); an error stops the run.
	Sink func(Call) error
	// Progress is called after each finished call, from the run's goroutines one at a time.
	Progress func(Progress)
	// NoCache sends every request even when an identical one has an answer in the cache.
	NoCache bool
	// Estimate gives the offline token estimate of the listing's tools (package cost); the
	// command wires it, nil leaves it out.
	Estimate func(*listing.Listing) (tokens int, method string, err error)
	// Now stamps the header; nil means time.Now.
	Now func() time.Time
}

// NewHeader describes a run of tasks against l with spec.
func NewHeader(l *listing.Listing, tasks []selection.Task, spec Spec) Header {
	return Header{Kind: "run", Version: 1, Spec: spec, ListingHash: listingHash(l), TasksHash: tasksHash(tasks),
		Tools: l.Names(), Tasks: tasks}
}

func listingHash(l *listing.Listing) string {
	h := sha256.New()
	for _, t := range l.Tools {
		h.Write(listing.Marshal(t, ""))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

func tasksHash(tasks []selection.Task) string {
	b, _ := json.Marshal(tasks)
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Execute runs every task's samples through the client. It returns the run with every call
// that finished, also when the context is cancelled or a call's sink fails, together with that
// error; calls that failed after their retries are in the run as OutError.
func Execute(ctx context.Context, c *Client, l *listing.Listing, tasks []selection.Task, opts Options) (*Run, error) {
	spec := opts.Spec
	spec.Endpoint, spec.Model = c.ep.Name, c.ep.Model
	if spec.Samples == 0 {
		spec.Samples = 1
	}
	if err := spec.validate(); err != nil {
		return nil, err
	}
	if len(l.Tools) == 0 {
		return nil, errors.New("the listing has no tools to run the tasks against")
	}
	if len(tasks) == 0 {
		return nil, errors.New("the task file holds no tasks")
	}
	hdr, done, err := startHeader(l, tasks, spec, opts)
	if err != nil {
		return nil, err
	}
	if opts.Start != nil {
		if err := opts.Start(hdr); err != nil {
			return nil, err
		}
	}
	x := &execution{c: c, ts: newToolSet(l), tasks: tasks, spec: spec, opts: opts, run: &Run{Header: hdr},
		prog: Progress{Total: len(tasks) * spec.Samples, Resumed: len(done), Done: len(done)}}
	for _, cl := range done {
		x.run.Calls = append(x.run.Calls, cl)
	}
	return x.execute(ctx, pending(len(tasks), spec.Samples, done))
}

// startHeader is the header of a run about to start, and the calls it keeps from the run it
// resumes (opts.Resume) by task and sample: those that got an answer.
func startHeader(l *listing.Listing, tasks []selection.Task, spec Spec, opts Options) (Header, map[[2]int]Call, error) {
	hdr := NewHeader(l, tasks, spec)
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	hdr.Started = now().UTC().Format(time.RFC3339)
	if opts.Estimate != nil {
		if n, method, err := opts.Estimate(l); err == nil {
			hdr.EstimatedTokens, hdr.EstimateMethod = &n, method
		}
	}
	done := map[[2]int]Call{}
	if opts.Resume == nil {
		return hdr, done, nil
	}
	if err := Resumable(opts.Resume.Header, hdr); err != nil {
		return hdr, nil, err
	}
	hdr.Started = opts.Resume.Header.Started
	hdr.EstimatedTokens, hdr.EstimateMethod = opts.Resume.Header.EstimatedTokens, opts.Resume.Header.EstimateMethod
	for _, cl := range opts.Resume.Calls {
		if cl.Outcome != OutError && cl.Task < len(tasks) && cl.Sample < spec.Samples {
			done[[2]int{cl.Task, cl.Sample}] = cl
		}
	}
	return hdr, done, nil
}

// job is one call to make: a sample of a task.
type job struct{ task, sample int }

// pending lists the calls not done yet, sample-major: a run stopped early has every task at
// least once.
func pending(tasks, samples int, done map[[2]int]Call) []job {
	var jobs []job
	for s := 0; s < samples; s++ {
		for t := range tasks {
			if _, ok := done[[2]int{t, s}]; !ok {
				jobs = append(jobs, job{t, s})
			}
		}
	}
	return jobs
}

// execution is a run in progress: its workers share it under mu.
type execution struct {
	c     *Client
	ts    *toolSet
	tasks []selection.Task
	spec  Spec
	opts  Options

	mu      sync.Mutex
	run     *Run
	prog    Progress
	sinkErr error
	cancel  context.CancelFunc
}

// execute makes the jobs' calls with the client's concurrency, until done or ctx ends.
func (x *execution) execute(ctx context.Context, jobs []job) (*Run, error) {
	ctx, x.cancel = context.WithCancel(ctx)
	defer x.cancel()
	feed := make(chan job)
	var wg sync.WaitGroup
	workers := min(x.c.Concurrency(), len(jobs))
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range feed {
				cl, err := callOnce(ctx, x.c, x.ts, x.tasks[j.task], j.task, j.sample, x.spec, x.opts.NoCache)
				if err != nil {
					// Cancelled: the call did not finish and is not recorded.
					continue
				}
				x.finished(cl)
			}
		}()
	}
send:
	for _, j := range jobs {
		select {
		case feed <- j:
		case <-ctx.Done():
			break send
		}
	}
	close(feed)
	wg.Wait()
	sortCalls(x.run.Calls)
	if x.sinkErr != nil {
		return x.run, fmt.Errorf("saving a finished call: %w", x.sinkErr)
	}
	return x.run, context.Cause(ctx)
}

// finished records a finished call: through the sink first, then in the run and its
// progress. A sink that fails stops the run, and its call is not recorded.
func (x *execution) finished(cl Call) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.sinkErr == nil && x.opts.Sink != nil {
		if err := x.opts.Sink(cl); err != nil {
			x.sinkErr = err
			x.cancel()
			return
		}
	}
	x.run.Calls = append(x.run.Calls, cl)
	x.prog.Done++
	if cl.Outcome == OutError {
		x.prog.Errors++
	}
	if cl.Cached {
		x.prog.Cached++
	}
	if x.opts.Progress != nil {
		p := x.prog
		p.Call = &cl
		x.opts.Progress(p)
	}
}

// Resumable reports whether calls recorded under old belong to the run described by cur.
func Resumable(old, cur Header) error {
	var diffs []string
	if old.ListingHash != cur.ListingHash {
		diffs = append(diffs, "the listing")
	}
	if old.TasksHash != cur.TasksHash {
		diffs = append(diffs, "the task file")
	}
	a, b := old.Spec, cur.Spec
	if a.Endpoint != b.Endpoint || a.Model != b.Model {
		diffs = append(diffs, fmt.Sprintf("the endpoint (%s/%s, now %s/%s)", a.Endpoint, a.Model, b.Endpoint, b.Model))
	}
	if a.Temperature != b.Temperature || !sameSeed(a.Seed, b.Seed) || a.SystemPrompt != b.SystemPrompt || a.Shuffle != b.Shuffle {
		diffs = append(diffs, "the temperature, seed, system prompt or tool order")
	}
	if len(diffs) > 0 {
		return fmt.Errorf("cannot resume: %s differ from the run file's; start a new run file, or resume with the same inputs", strings.Join(diffs, ", "))
	}
	return nil
}

func sameSeed(a, b *int64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// order is the tool order sent for one sample: as listed, or a permutation drawn from the seed,
// the task and the sample, so a resumed or repeated run sends the same orders.
func order(n int, spec Spec, task, sample int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	if spec.Shuffle {
		var seed uint64
		if spec.Seed != nil {
			seed = uint64(*spec.Seed)
		}
		r := rand.New(rand.NewPCG(seed, uint64(task)<<32|uint64(sample)))
		r.Shuffle(n, func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	}
	return idx
}

// buildRequest builds the chat request for one sample of one task.
func buildRequest(ts *toolSet, t selection.Task, task, sample int, spec Spec) (openai.ChatCompletionRequest, []int) {
	ord := order(len(ts.defs), spec, task, sample)
	tools := make([]openai.Tool, len(ord))
	for i, k := range ord {
		tools[i] = ts.defs[k]
	}
	var msgs []openai.ChatCompletionMessage
	if spec.SystemPrompt != "" {
		msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: spec.SystemPrompt})
	}
	msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: t.Task})
	req := openai.ChatCompletionRequest{Model: spec.Model, Messages: msgs, Tools: tools,
		Temperature: float32(spec.Temperature)}
	if req.Temperature == 0 {
		// go-openai drops a zero temperature (omitempty), which servers read as their default
		// (1 for OpenAI); the smallest positive float is its documented way to send zero.
		req.Temperature = math.SmallestNonzeroFloat32
	}
	if spec.Seed != nil {
		s := int(*spec.Seed) + sample
		req.Seed = &s
	}
	return req, ord
}

// MaxTextBytes bounds the text kept of an answer without a tool call.
const MaxTextBytes = 2000

// MaxArgumentsBytes bounds the arguments a call keeps (they are checked whole first), and
// MaxToolNameBytes the name of a tool the listing does not have (a known name is the listing's).
const (
	MaxArgumentsBytes = 16 << 10
	MaxToolNameBytes  = 256
)

func callOnce(ctx context.Context, c *Client, ts *toolSet, t selection.Task, task, sample int, spec Spec, noCache bool) (Call, error) {
	req, ord := buildRequest(ts, t, task, sample, spec)
	cl := Call{Task: task, Sample: sample, Position: -1}
	reply, err := c.Complete(ctx, req, sample, noCache)
	if err != nil && ctx.Err() != nil {
		return cl, err
	}
	if reply != nil {
		cl.Hash, cl.Cached, cl.Attempts = reply.Hash, reply.Cached, reply.Attempts
		cl.LatencyMS = float64(reply.Latency.Microseconds()) / 1000
		ex := BoundExchange(reply.Exchange) // a run of many calls keeps each one's
		cl.Exchange = &ex
		cl.Status = reply.Exchange.Status
	}
	if err != nil {
		var ce *CallError
		cl.Outcome, cl.Error = OutError, c.redactString(err.Error())
		if errors.As(err, &ce) {
			cl.Status = ce.Status
		}
		return cl, nil
	}
	comp := reply.Completion
	cl.Usage = Usage{comp.Usage.PromptTokens, comp.Usage.CompletionTokens, comp.Usage.TotalTokens}
	msg := comp.Choices[0].Message
	calls := msg.ToolCalls
	if len(calls) == 0 && msg.FunctionCall != nil {
		// The pre-tools function_call form, still sent by some servers.
		calls = []openai.ToolCall{{Type: openai.ToolTypeFunction, Function: *msg.FunctionCall}}
	}
	cl.ToolCalls = len(calls)
	switch {
	case len(calls) > 0:
		// The arguments are JSON text of their own, which may spell the key with escapes the
		// completion's scrub did not resolve; everything below, the problems the check writes
		// (which quote decoded names and values) included, reads the redacted name and arguments.
		fc := calls[0].Function
		name, args := c.redactString(fc.Name), string(c.redactJSON([]byte(fc.Arguments)))
		cl.Outcome, cl.Tool, cl.Arguments = OutTool, name, args
		_, cl.Known = ts.index[name]
		for pos, k := range ord {
			if ts.names[k] == name {
				cl.Position = pos
				break
			}
		}
		cl.Args = ts.check(name, args, t.Args, argsTool(t, name))
		// Checked whole, kept bounded: an endpoint may send megabytes of either on every call.
		cl.Arguments = snippet([]byte(args), MaxArgumentsBytes)
		if !cl.Known {
			cl.Tool = snippet([]byte(name), MaxToolNameBytes)
			cl.Args.Problems = append(cl.Args.Problems, fmt.Sprintf("the listing has no tool named %q", cl.Tool))
		}
	case strings.TrimSpace(msg.Content) != "":
		cl.Outcome = OutText
		cl.Text = c.excerpt([]byte(msg.Content), MaxTextBytes)
	default:
		cl.Outcome = OutNone
	}
	return cl, nil
}

func sortCalls(calls []Call) {
	sort.Slice(calls, func(a, b int) bool {
		x, y := calls[a], calls[b]
		if x.Task != y.Task {
			return x.Task < y.Task
		}
		return x.Sample < y.Sample
	})
}
