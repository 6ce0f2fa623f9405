// Package storetest is the conformance suite every store.Store passes: call Run from the
// implementation's tests with a function that opens a store, and BenchmarkEdits from its
// benchmarks. Tests only create workspaces of their own, so one database can serve them all.
//
// The tests are filed by the role of store.Store they exercise: workspaces.go, history.go,
// shapes.go (positions), undo.go, tasks.go, runs.go, access.go, review.go, challenge.go and events.go (with the
// concurrency test); bench.go holds the benchmarks, and pruning.go, roundtrip.go and
// upgrade.go the checks that need the implementation's database.
package storetest

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

// Opener opens a store for one test; the suite closes it.
type Opener func(t testing.TB) store.Store

// Run runs the conformance suite.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"Workspaces", testWorkspaces},
		{"InvalidInput", testInvalidInput},
		{"EditsAndRevisions", testEditsAndRevisions},
		{"Coalescing", testCoalescing},
		{"BadEditChangesNothing", testBadEdit},
		{"RestoreAndCommit", testRestoreAndCommit},
		{"NameRevision", testNameRevision},
		{"RealListingsRoundTrip", testRealListings},
		{"Tasks", testTasks},
		{"TaskCoalescing", testTaskCoalescing},
		{"TasksShape", testTasksShape},
		{"ToolsShape", testToolsShape},
		{"MakeOps", testMakeOps},
		{"Undo", testUndo},
		{"UndoTasks", testUndoTasks},
		{"UndoTaskField", testUndoTaskField},
		{"UndoLargeValues", testUndoLargeValues},
		{"UndoBursts", testUndoBursts},
		{"UndoFollowsMovedTool", testUndoFollowsMovedTool},
		{"UndoDuplicateNames", testUndoDuplicateNames},
		{"UndoRestore", testUndoRestore},
		{"LongHistoryDeletes", testLongHistoryDeletes},
		{"RevisionPages", testRevisionPages},
		{"ConcurrentImports", testConcurrentImports},
		{"Meta", testMeta},
		{"Runs", testRuns},
		{"RunCompareAndSwap", testRunCompareAndSwap},
		{"ShareLinks", testShareLinks},
		{"Sessions", testSessions},
		{"Fork", testFork},
		{"Reviews", testReviews},
		{"SignoffSeals", testSignoffSeals},
		{"HostileAnchor", testHostileAnchor},
		{"Challenges", testChallenges},
		{"ChallengeState", testChallengeState},
		{"Participants", testParticipants},
		{"ParticipantLimit", testParticipantLimit},
		{"ConcurrentJoins", testConcurrentJoins},
		{"Scores", testScores},
		{"ChallengeCascades", testChallengeCascades},
		{"Subscribe", testSubscribe},
		{"ConcurrentEdits", testConcurrentEdits},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("close: %v", err)
				}
			})
			tc.fn(t, s)
		})
	}
}

// sample is a small listing in the JSON-RPC response shape, with an envelope member and a
// non-ASCII description, so a round trip that loses either shows.
const sample = `{"jsonrpc": "2.0", "id": 7, "result": {"tools": [
 {"name": "search", "description": "Search the files", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}},
 {"name": "read", "description": "Read one file — fully", "inputSchema": {"type": "object"}, "x-extra": 1.50},
 {"name": "write", "description": "Write a file", "inputSchema": {"type": "object"}}
], "nextCursor": "abc"}}`

// Sample returns the suite's sample listing.
func Sample(t testing.TB) *listing.Listing {
	t.Helper()
	l, err := listing.Parse([]byte(sample), listing.Options{Name: "sample"})
	if err != nil {
		t.Fatalf("parse sample: %v", err)
	}
	return l
}

func newWorkspace(t testing.TB, s store.Store, at time.Time) store.Workspace {
	t.Helper()
	w, err := s.CreateWorkspace(context.Background(), store.NewWorkspace{Title: "Sample server", Author: "ada", Message: "imported", Listing: Sample(t), Now: at})
	if err != nil {
		t.Fatalf("create workspace: %v", err)
	}
	return w
}

func set(path, text string) []listing.Op {
	return []listing.Op{{Kind: listing.OpSet, Path: path, Value: listing.NewString(text)}}
}

func sameListing(a, b *listing.Listing) bool {
	return bytes.Equal(a.Marshal(""), b.Marshal(""))
}

func wantKind(t *testing.T, what string, err error, k store.Kind) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want a %s error", what, k)
		return
	}
	if got := store.KindOf(err); got != k {
		t.Errorf("%s: error kind %s (%v), want %s", what, got, err, k)
	}
	if err.Error() == "" {
		t.Errorf("%s: empty error message", what)
	}
}

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
