package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/selection/fake"
	"github.com/tool-workbench/workbench/selection/runner"
)

// A run made through an endpoint with "record" (which keeps no settings, each request carrying
// its own) replays with --replay and the run's own settings: the same answers, no key.
func TestRunThroughRecordEndpointReplays(t *testing.T) {
	dir := t.TempDir()
	tape := filepath.Join(dir, "tape.json")
	cfg := filepath.Join(dir, "endpoints.json")
	if err := os.WriteFile(cfg, []byte(`{"endpoints": [{"name": "live", "baseURL": "`+fakeURL(t, &fake.Server{})+`", "model": "fake", "record": "`+tape+`"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	common := []string{"--tasks", filepath.Join(runTD, "tasks.json"), "--format", "json", "--cache-dir", "off"}
	live, errs, code := runWith(t, nil, append([]string{"run", filepath.Join(runTD, "tickets.json"), "--endpoints", cfg, "--endpoint", "live"}, common...)...)
	if code != 0 {
		t.Fatalf("the recorded run: exit %d: %s", code, errs)
	}
	rec, err := runner.OpenRecording(tape)
	if err != nil || len(rec.Exchanges) == 0 || rec.Spec.Recorded() {
		t.Fatalf("the endpoint's recording: %v, %+v", err, rec)
	}
	again, errs, code := runWith(t, nil, append([]string{"run", filepath.Join(runTD, "tickets.json"), "--replay", tape}, common...)...)
	if code != 0 || strings.Contains(again, "holds no answer") {
		t.Fatalf("the replay: exit %d\nstderr: %s\nstdout: %.600s", code, errs, again)
	}
	if accuracy := func(s string) string { _, a, _ := strings.Cut(s, `"accuracy"`); return a[:min(len(a), 40)] }; accuracy(again) != accuracy(live) {
		t.Errorf("the replay scores %s, the live run %s", accuracy(again), accuracy(live))
	}
}
