package web

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/examples"
	"github.com/tool-workbench/workbench/listing"
	runsvc "github.com/tool-workbench/workbench/runs"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/selection/fake"
	"github.com/tool-workbench/workbench/selection/runner"
	"github.com/tool-workbench/workbench/store"
	"github.com/tool-workbench/workbench/views"
)

// BenchmarkRunResults measures what a click on "Results" costs for a run of 100 tasks × 10
// samples on the library listing: scoring, the view model and the rendered HTML.
func BenchmarkRunResults(b *testing.B) {
	b.Setenv(keyEnv, testKey)
	ex, _ := examples.Get("library-2-draft")
	l, err := listing.Parse(ex.Listing, listing.Options{Name: "library"})
	if err != nil {
		b.Fatal(err)
	}
	base, err := selection.ParseTasks(ex.Tasks, false)
	if err != nil {
		b.Fatal(err)
	}
	var tasks []selection.Task
	for i := 0; len(tasks) < 100; i++ {
		t := base[i%len(base)]
		t.Task = fmt.Sprintf("%s (case %d)", t.Task, i)
		tasks = append(tasks, t)
	}
	f := &fake.Server{Key: testKey}
	client, err := runner.NewClient(fakeEndpoint(), runner.ClientOptions{Getenv: os.Getenv, HTTP: runner.HandlerDoer{Handler: f}})
	if err != nil {
		b.Fatal(err)
	}
	seed := int64(1)
	run, err := runner.Execute(context.Background(), client, l, tasks, runner.Options{Spec: runner.Spec{Samples: 10, Seed: &seed, Shuffle: true}})
	if err != nil {
		b.Fatal(err)
	}
	s := newRunEnvWith(b, f, RunsConfig{}).s
	ctx := context.Background()
	w, err := s.db.CreateWorkspace(ctx, store.NewWorkspace{Title: "bench", Author: "bench", Listing: l, Now: time.Now()})
	if err != nil {
		b.Fatal(err)
	}
	rec := store.Run{ID: store.NewID(), Workspace: w.ID, Label: "bench", Status: runsvc.Done}
	body := runsvc.Body{Listing: listing.Marshal(l.Result(), ""), Run: run}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		m, err := s.resultModel(ctx, w.ID, rec, body)
		if err != nil {
			b.Fatal(err)
		}
		if html := render(ctx, views.RunResultRegion(m)); len(html) == 0 {
			b.Fatal("nothing rendered")
		}
	}
}
