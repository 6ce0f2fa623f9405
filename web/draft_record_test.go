package web

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/drafting/fakemodel"
	"github.com/tool-workbench/workbench/selection/runner"
)

// TestSuggestRehearsedThenReplayed is a workshop prepared once with a model and shown with
// none: a server whose endpoint has "record" keeps every exchange of the teacher's asks (the
// key scrubbed); a server whose endpoint replays that file, with no key and no network, answers
// the same asks with the same candidates, and an ask it did not record says so.
func TestSuggestRehearsedThenReplayed(t *testing.T) {
	tape := filepath.Join(t.TempDir(), "rehearsal.json")
	ep := fakeEndpoint()
	ep.Record = tape
	t.Setenv(keyEnv, testKey)
	live := newRunEnvWith(t, nil, RunsConfig{Endpoints: []runner.Endpoint{ep}, Getenv: os.Getenv,
		HTTP: runner.HandlerDoer{Handler: &fakemodel.Server{Key: testKey}}, Retries: -1})
	ws := openExample(t, live.s, "library-2-draft")
	code, rehearsed := live.call(t, http.MethodPost, "/w/"+ws+"/suggest?t=0", askForm())
	if code != http.StatusOK || strings.Count(rehearsed, `data-testid="suggest-card"`) != 3 {
		t.Fatalf("the rehearsal's ask: %d %s", code, rehearsed)
	}
	_, dlg := live.call(t, "GET", "/w/"+ws+"/suggest/form?t=0", nil)
	if !strings.Contains(dlg, "(recorded)") {
		t.Errorf("the dialog does not say the endpoint is recorded:\n%s", dlg)
	}
	live.s.Close() // writes the recording
	b, err := os.ReadFile(tape)
	if err != nil {
		t.Fatalf("no recording after Close: %v", err)
	}
	if strings.Contains(string(b), testKey) {
		t.Fatal("the recording holds the key")
	}

	// The workshop: no key in the environment, no network, the same listing and tool.
	t.Setenv(keyEnv, "")
	replay := newRunEnvWith(t, nil, RunsConfig{Endpoints: []runner.Endpoint{{Name: "fake", Model: "fake-model", Replay: tape}},
		Getenv: os.Getenv, HTTP: runner.HandlerDoer{Handler: http.NotFoundHandler()}, Retries: -1})
	ws2 := openExample(t, replay.s, "library-2-draft")
	code, shown := replay.call(t, http.MethodPost, "/w/"+ws2+"/suggest?t=0", askForm())
	if code != http.StatusOK || strings.Count(shown, `data-testid="suggest-card"`) != 3 {
		t.Fatalf("the replayed ask: %d %s", code, shown)
	}
	diffs := regexp.MustCompile(`(?s)data-testid="suggest-diff".*?</p>`)
	if got, want := diffs.FindAllString(shown, -1), diffs.FindAllString(rehearsed, -1); strings.Join(got, "\n") != strings.Join(want, "\n") || len(got) != 3 {
		t.Errorf("the replay shows other candidates than the rehearsal:\n%q\nwant\n%q", got, want)
	}
	// Another tool was never asked about in the rehearsal.
	_, other := replay.call(t, http.MethodPost, "/w/"+ws2+"/suggest?t=1", askForm())
	if strings.Contains(other, `data-testid="suggest-card"`) || !strings.Contains(other, "holds no answer to this request") {
		t.Errorf("an ask the rehearsal did not make: %s", other)
	}
}
