package analysis

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/lint/reference"
	"github.com/tool-workbench/workbench/listing"
)

// TestNearDupsMatchReference checks the incremental near-duplicate count against
// reference.NearDuplicates over random edit sequences: descriptions drawn from a small
// vocabulary (so that pairs reach the threshold), repeated names, renames, listings that grow,
// and two listings edited in turn through one engine.
func TestNearDupsMatchReference(t *testing.T) {
	vocab := strings.Fields("ticket order user repo issue file close open list comment label branch")
	pool := strings.Fields("a b c d e f a_b c")
	rng := rand.New(rand.NewPCG(3, 4))
	desc := func() []string {
		var ws []string
		for range rng.IntN(6) {
			ws = append(ws, vocab[rng.IntN(len(vocab))])
		}
		return reference.DescriptionWords(listing.NewObject(listing.Member{Key: "description", Value: listing.NewString(strings.Join(ws, " ")), KeyPos: -1}))
	}
	var nd nearDups
	type rev struct {
		names []string
		descs [][]string
	}
	revs := make([]rev, 2)
	for k := range revs {
		n := 2 + rng.IntN(9)
		for range n {
			revs[k].names = append(revs[k].names, pool[rng.IntN(len(pool))])
			revs[k].descs = append(revs[k].descs, desc())
		}
	}
	warned := 0
	for step := range 2000 {
		r := &revs[rng.IntN(len(revs))]
		names := append([]string(nil), r.names...)
		descs := append([][]string(nil), r.descs...)
		switch rng.IntN(10) {
		case 0:
			names[rng.IntN(len(names))] = pool[rng.IntN(len(pool))]
		case 1:
			names, descs = append(names, pool[rng.IntN(len(pool))]), append(descs, desc())
		case 2:
			// unchanged
		default:
			descs[rng.IntN(len(descs))] = desc()
		}
		r.names, r.descs = names, descs
		got, err := nd.line(context.Background(), names, descs)
		if err != nil {
			t.Fatal(err)
		}
		want := reference.NearDuplicates(names, descs)
		if got.Level == reference.Warn {
			warned++
		}
		if got != want {
			t.Fatalf("step %d, names %v: incremental line %q, reference %q", step, names, got.String(), want.String())
		}
	}
	if warned == 0 {
		t.Error("no step had a near-duplicate pair: the test does not reach the threshold")
	}
}
