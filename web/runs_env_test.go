package web

// The test rig of the Runs tab: a server whose one endpoint is the fake model in process, and
// the helpers that drive it through the real router and read a page's live stream.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	runsvc "github.com/tool-workbench/workbench/runs"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/fake"
	"github.com/tool-workbench/workbench/selection/runner"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/store/sqlite"
)

// testKey is the API key of the tests' endpoint: it must never appear in anything the server
// writes.
const testKey = "sk-test-3f9c1e7d5b2a4c6e8f0a1b3c5d7e9f21"

const keyEnv = "WORKBENCH_TEST_RUN_KEY"

// syncBuf is a log sink that tests read while runs write to it.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuf) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuf) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// runEnv is a server whose Runs tab offers the fake endpoint "fake" (key required), in process.
type runEnv struct {
	s    *Server
	db   store.Store
	fake *fake.Server
	log  *syncBuf
}

func fakeEndpoint() runner.Endpoint {
	return runner.Endpoint{Name: "fake", BaseURL: "http://fake.invalid/v1", Model: "fake-model", APIKeyEnv: keyEnv, Concurrency: 4}
}

func newRunEnv(t *testing.T, f *fake.Server, configure func(*RunsConfig)) *runEnv {
	t.Helper()
	t.Setenv(keyEnv, testKey)
	if f == nil {
		f = &fake.Server{}
	}
	f.Key = testKey
	cfg := RunsConfig{Endpoints: []runner.Endpoint{fakeEndpoint()}, Getenv: os.Getenv,
		HTTP: runner.HandlerDoer{Handler: f}, ProgressEvery: 10 * time.Millisecond, Retries: -1,
		Estimate: func(l *listing.Listing) (int, string, error) { return 100 * len(l.Tools), "test estimate", nil }}
	if configure != nil {
		configure(&cfg)
	}
	return newRunEnvWith(t, f, cfg)
}

func newRunEnvWith(t testing.TB, f *fake.Server, cfg RunsConfig) *runEnv {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "wb.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	eng, err := analysis.New(analysis.Options{Extended: lint.New(lint.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	buf := &syncBuf{}
	s, err := New(Config{Store: db, Engine: eng, DatastarJS: []byte("// test client"), Runs: cfg,
		Log: slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.WaitRuns)
	return &runEnv{s: s, db: db, fake: f, log: buf}
}

// call sends a request through the real router and returns the status and body.
func (e *runEnv) call(t *testing.T, method, path string, form url.Values) (int, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else if method == http.MethodPost {
		body = strings.NewReader(`{"pid":"` + strings.Repeat("c", 32) + `","tool":0,"ver":0}`)
	}
	req := httptest.NewRequest(method, path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Datastar-Request", "true")
	rec := httptest.NewRecorder()
	e.s.Handler().ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

func (e *runEnv) start(t *testing.T, ws string, form url.Values) string {
	t.Helper()
	code, body := e.call(t, http.MethodPost, "/w/"+ws+"/runs", form)
	if code != http.StatusOK {
		t.Fatalf("start run: status %d: %s", code, body)
	}
	if m := regexp.MustCompile(`data-testid="run-form-problem">([^<]*)`).FindStringSubmatch(body); m != nil {
		t.Fatalf("start run refused: %s", m[1])
	}
	// The answer names the run; its progress comes over the page's stream.
	id := regexp.MustCompile(`data-testid="run-started" data-run="([0-9a-f]{32})"`).FindStringSubmatch(body)
	if id == nil {
		t.Fatalf("no run id in the answer to start: %s", body)
	}
	return id[1]
}

func (e *runEnv) stored(t *testing.T, ws, id string) (store.Run, runsvc.Body, runsvc.Meta) {
	t.Helper()
	rec, err := e.db.Run(context.Background(), ws, id)
	if err != nil {
		t.Fatal(err)
	}
	var body runsvc.Body
	if err := json.Unmarshal(rec.Body, &body); err != nil {
		t.Fatal(err)
	}
	var meta runsvc.Meta
	if err := json.Unmarshal(rec.Meta, &meta); err != nil {
		t.Fatal(err)
	}
	return rec, body, meta
}

// putTasks replaces a workspace's task file in the store, as an import does.
func (e *runEnv) putTasks(t *testing.T, ws, src string) {
	t.Helper()
	if _, err := selection.ParseTasks([]byte(src), false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.PutTasks(context.Background(), store.TaskEdit{Workspace: ws, Body: json.RawMessage(src), Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
}

// liveStream is a page's live stream over real HTTP, read in the background.
type liveStream struct {
	mu   sync.Mutex
	body strings.Builder
	done chan struct{}
}

func (e *runEnv) openStream(t *testing.T, ws string) *liveStream {
	t.Helper()
	ts := httptest.NewServer(e.s.Handler())
	ctx, cancel := context.WithCancel(context.Background())
	q := url.QueryEscape(`{"pid":"` + strings.Repeat("d", 32) + `","tool":0,"ver":0}`)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/w/"+ws+"/stream?datastar="+q, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	st := &liveStream{done: make(chan struct{})}
	go func() {
		defer close(st.done)
		buf := make([]byte, 1<<16)
		for {
			n, err := resp.Body.Read(buf)
			st.mu.Lock()
			st.body.Write(buf[:n])
			st.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		resp.Body.Close()
		<-st.done
		ts.Close()
	})
	deadline := time.Now().Add(5 * time.Second)
	for e.s.Hub().Pages(ws) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the stream did not join the hub")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return st
}

func (st *liveStream) text() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.body.String()
}

// waitFor polls until the stream holds pattern.
func (st *liveStream) waitFor(t *testing.T, pattern string) string {
	t.Helper()
	re := regexp.MustCompile(pattern)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if s := st.text(); re.MatchString(s) {
			return s
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the stream never held %q; it holds:\n%s", pattern, st.text())
	return ""
}

func runForm(kv ...string) url.Values {
	v := url.Values{"endpoint": {"fake"}, "samples": {"1"}, "temperature": {"0"}, "system": {runner.DefaultSystemPrompt}}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

var testID = regexp.MustCompile(`data-testid="([a-z-]+)"[^>]*>([^<]*)`)

// texts maps data-testid to the text right after the element opens.
func texts(body string) map[string]string {
	out := map[string]string{}
	for _, m := range testID.FindAllStringSubmatch(body, -1) {
		if _, ok := out[m[1]]; !ok {
			out[m[1]] = strings.TrimSpace(m[2])
		}
	}
	return out
}
