package runner

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/selection/fake"
)

func TestJob(t *testing.T) {
	l := mustListing(t, ticketTools)
	tasks := mustTasks(t, `[{"task": "Show me ticket 1", "expect": "tickets_get"}, {"task": "Find open tickets", "expect": "tickets_search"}]`)
	c := fakeClient(t, &fake.Server{}, ClientOptions{})
	j := Start(context.Background(), c, l, tasks, Options{Spec: Spec{Samples: 3}})
	var last Progress
	n := 0
	for p := range j.Events() {
		last = p
		n++
	}
	run, err := j.Wait()
	if err != nil || len(run.Calls) != 6 {
		t.Fatalf("run: %v calls, err %v", len(run.Calls), err)
	}
	if n == 0 || last.Done != 6 || last.Total != 6 || j.Latest().Done != 6 {
		t.Errorf("events %d, last %+v, latest %+v; want the final report 6 of 6", n, last, j.Latest())
	}

	// Cancel stops a slow run and keeps what finished.
	slow := mustTasks(t, `[{"task": "Show me ticket 1", "expect": "tickets_get"}, {"task": "Show me ticket 2 [[slow:10s]]", "expect": "tickets_get"}]`)
	c1 := fakeClient(t, &fake.Server{}, ClientOptions{Concurrency: 2})
	j = Start(context.Background(), c1, l, slow, Options{Spec: Spec{Samples: 1}})
	<-j.Events() // the fast task finished
	j.Cancel()
	select {
	case <-j.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled run did not end")
	}
	run, err = j.Wait()
	if !errors.Is(err, context.Canceled) || len(run.Calls) != 1 || run.Calls[0].Task != 0 {
		t.Errorf("cancelled run: err %v, calls %+v; want context.Canceled and the fast task kept", err, run.Calls)
	}
}
