package drafting_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/drafting/fakemodel"
	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection/runner"
)

// rubricEngine is the server's engine: the reference's rules and the extended ones.
func rubricEngine(t testing.TB) *analysis.Engine {
	t.Helper()
	eng, err := analysis.New(analysis.Options{Extended: lint.New(lint.Config{}), NoCost: true})
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// seedListing reads one of the seeds' reference fixtures in place; edit, when given, rewrites
// its text first (old, new pairs).
func seedListing(t testing.TB, name string, edit ...string) *listing.Listing {
	t.Helper()
	src := string(testutil.ReadShared(t, "reference", "fixtures", name))
	for i := 0; i+1 < len(edit); i += 2 {
		if !strings.Contains(src, edit[i]) {
			t.Fatalf("%s has no %q to edit", name, edit[i])
		}
		src = strings.Replace(src, edit[i], edit[i+1], 1)
	}
	l, err := listing.Parse([]byte(src), listing.Options{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// With a model every tool is scored by it, one call each, and the label names the model.
func TestRubricWithModel(t *testing.T) {
	srv := &fakemodel.Server{}
	c := fakeCaller(t, srv, nil, runner.ClientOptions{})
	l := seedListing(t, "clear-tools.json")
	r, err := drafting.ScoreRubric(context.Background(), c, rubricEngine(t), l, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Calls != len(l.Tools) || r.Plan.Calls != len(l.Tools) || srv.Requests() != len(l.Tools) {
		t.Errorf("calls %d, plan %d, requests %d; want %d each", r.Calls, r.Plan.Calls, srv.Requests(), len(l.Tools))
	}
	if r.Offline || r.Label != "scored by fake-model on endpoint fake" {
		t.Errorf("offline %v, label %q", r.Offline, r.Label)
	}
	for _, tr := range r.Tools {
		if tr.Offline || tr.Problem != "" || len(tr.Dims) != len(drafting.Dimensions) || tr.Mean < 1 || tr.Mean > 5 {
			t.Errorf("%s: %+v", tr.Tool, tr)
		}
	}
	for _, b := range srv.Briefs() {
		if b.Job != drafting.JobRubric || b.Tool == nil || len(b.Dimensions) != len(drafting.Dimensions) || len(b.Neighbours) == 0 {
			t.Errorf("brief for %v: job %s, %d dimensions, %d neighbours", b.Tool, b.Job, len(b.Dimensions), len(b.Neighbours))
		}
	}
}

// The cache keeps each tool's rubric by model and content: the same listing again makes no
// call, and editing one tool makes one.
func TestRubricCache(t *testing.T) {
	srv := &fakemodel.Server{}
	c := fakeCaller(t, srv, nil, runner.ClientOptions{})
	eng := rubricEngine(t)
	cache := drafting.NewRubricCache(0)
	l := seedListing(t, "clear-tools.json")
	model := drafting.ModelKey(c.Model)
	if p := drafting.PlanRubric(l, model, cache); p.Calls != len(l.Tools) {
		t.Errorf("empty cache: plan %+v", p)
	}
	if _, err := drafting.ScoreRubric(context.Background(), c, eng, l, cache); err != nil {
		t.Fatal(err)
	}
	// A tool's brief shows its neighbours, and the cache key holds them (a model's reasons may
	// name them): editing tickets_get scores it again, and every tool whose brief showed it.
	showsGet := 0
	for _, b := range srv.Briefs() {
		for _, n := range b.Neighbours {
			if n.Name == "tickets_get" {
				showsGet++
			}
		}
	}
	if showsGet == 0 {
		t.Fatal("no brief shows tickets_get as a neighbour; the step below would not test neighbours")
	}
	steps := []struct {
		name    string
		listing *listing.Listing
		calls   int
	}{
		{"the same listing", seedListing(t, "clear-tools.json"), 0},
		{"one tool edited, a neighbour of none", seedListing(t, "clear-tools.json", "Reads tickets only.", "Reads tickets only; it never sends mail."), 1},
		{"a neighbour edited", seedListing(t, "clear-tools.json", "Reads tickets only.", "Reads tickets only; it never sends mail.",
			"Show one support ticket", "Show a single support ticket"), 1 + showsGet},
	}
	for _, s := range steps {
		before := srv.Requests()
		if p := drafting.PlanRubric(s.listing, model, cache); p.Calls != s.calls {
			t.Errorf("%s: plan %+v, want %d calls", s.name, p, s.calls)
		}
		r, err := drafting.ScoreRubric(context.Background(), c, eng, s.listing, cache)
		if err != nil {
			t.Fatal(err)
		}
		cached := 0
		for _, tr := range r.Tools {
			if tr.Cached {
				cached++
			}
		}
		if got := srv.Requests() - before; got != s.calls || r.Calls != s.calls || cached != len(r.Tools)-s.calls {
			t.Errorf("%s: %d requests, %d calls, %d cached; want %d, %d, %d", s.name, got, r.Calls, cached, s.calls, s.calls, len(r.Tools)-s.calls)
		}
	}
	// Another model does not read this one's scores.
	other := drafting.ModelKey(c.Model) + "-other"
	if p := drafting.PlanRubric(l, other, cache); p.Calls != len(l.Tools) {
		t.Errorf("another model: plan %+v", p)
	}
}

// A model that answers nonsense leaves every tool with its offline score and the problem,
// caches nothing, and the label says how many tools fell back.
func TestRubricMalformedModel(t *testing.T) {
	for _, bad := range []fakemodel.Bad{fakemodel.BadText, fakemodel.BadShape, fakemodel.BadEmpty} {
		srv := &fakemodel.Server{Mode: fakemodel.Malformed, Bad: bad}
		c := fakeCaller(t, srv, nil, runner.ClientOptions{})
		cache := drafting.NewRubricCache(0)
		l := seedListing(t, "confusing-tools.json")
		r, err := drafting.ScoreRubric(context.Background(), c, rubricEngine(t), l, cache)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range r.Tools {
			if !tr.Offline || !strings.Contains(tr.Problem, "the model's answer is not a rubric") || len(tr.Dims) != len(drafting.Dimensions) {
				t.Errorf("bad %d, %s: %+v", bad, tr.Tool, tr)
			}
		}
		if !r.Offline || !strings.Contains(r.Label, "9 tools offline from the findings") || cache.Len() != 0 {
			t.Errorf("bad %d: offline %v, label %q, %d cached", bad, r.Offline, r.Label, cache.Len())
		}
	}
}

// A spent budget stops the calls; the tools it did not reach keep their offline score and say
// why.
func TestRubricBudget(t *testing.T) {
	srv := &fakemodel.Server{}
	c := fakeCaller(t, srv, drafting.NewBudget(3), runner.ClientOptions{})
	r, err := drafting.ScoreRubric(context.Background(), c, rubricEngine(t), seedListing(t, "clear-tools.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	offline := 0
	for _, tr := range r.Tools {
		if tr.Offline {
			offline++
			if !strings.Contains(tr.Problem, "budget is spent") {
				t.Errorf("%s: problem %q", tr.Tool, tr.Problem)
			}
		}
	}
	if srv.Requests() != 3 || r.Calls != 3 || offline != 5 {
		t.Errorf("%d requests, %d calls, %d offline; want 3, 3, 5", srv.Requests(), r.Calls, offline)
	}
}

// A model slower than the caller's deadline ends the rubric with ctx's error, not a score.
func TestRubricSlowModel(t *testing.T) {
	srv := &fakemodel.Server{Delay: time.Minute}
	c := fakeCaller(t, srv, nil, runner.ClientOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := drafting.ScoreRubric(ctx, c, rubricEngine(t), seedListing(t, "clear-tools.json"), nil)
	if err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Errorf("error %v, want the deadline", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("took %s", time.Since(start))
	}
}

// A model that quotes the request's key back never gets it into the rubric.
func TestRubricNeverHoldsTheKey(t *testing.T) {
	const key = "sk-rubric-secret-4242424242"
	srv := &fakemodel.Server{Mode: fakemodel.Echo, Key: key}
	c := fakeCaller(t, srv, nil, runner.ClientOptions{})
	r, err := drafting.ScoreRubric(context.Background(), c, rubricEngine(t), seedListing(t, "confusing-tools.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(r)
	if strings.Contains(string(b), key) || strings.Contains(string(b), "4242424242") {
		t.Fatalf("the rubric holds the key: %s", b)
	}
	if !strings.Contains(string(b), "[redacted]") {
		t.Errorf("the echo model's reasons should quote the (redacted) header: %.500s", b)
	}
	rec, _ := json.Marshal(c.Record.Recording(runner.Spec{}))
	if strings.Contains(string(rec), key) {
		t.Error("the recording holds the key")
	}
}

// TestModelGolden keeps what the fake model's rubric and proposed tasks look like on the seeds'
// fixtures: the answers the API gives, read as documentation. Run with -update to rewrite
// drafting/testdata/rubric-model-*.json and tasks-model-*.json.
func TestModelGolden(t *testing.T) {
	for _, name := range []string{"clear-tools.json", "confusing-tools.json", "draft-tools.json"} {
		t.Run(name, func(t *testing.T) {
			base := strings.TrimSuffix(name, ".json")
			c := fakeCaller(t, &fakemodel.Server{}, nil, runner.ClientOptions{})
			r, err := drafting.ScoreRubric(context.Background(), c, rubricEngine(t), seedListing(t, name), nil)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.MarshalIndent(r, "", "  ")
			testutil.Golden(t, "testdata/rubric-model-"+base+".json", append(got, '\n'))
			p, err := drafting.GenerateTasks(context.Background(), c, drafting.TasksRequest{Listing: seedListing(t, name)})
			if err != nil {
				t.Fatal(err)
			}
			got, _ = json.MarshalIndent(p, "", "  ")
			testutil.Golden(t, "testdata/tasks-model-"+base+".json", append(got, '\n'))
		})
	}
}
