package challenge

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/examples"
	"github.com/tool-workbench/workbench/listing"
)

// stuffing is what a participant who games the ranker appends to every description: the words
// of every kind of request.
const stuffing = " Bikes, stations, docks, rides, trips, members, plans, cards, fares, unlock, lock, return, rent, report, broken, repair, month, closest, near, charged."

// stuffed returns the listing with every tool's description followed by words, times over.
func stuffed(t testing.TB, src []byte, words string, times int) *listing.Listing {
	t.Helper()
	l := parseListing(t, src)
	for i, tool := range l.Tools {
		desc := tool.Get("description").Str + strings.Repeat(words, times)
		var err error
		if l, err = l.Apply(listing.Op{Kind: listing.OpSet, Path: "/tools/" + strconv.Itoa(i) + "/description", Value: listing.NewString(desc)}); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

// TestWorkshopLesson is what the built-in workshop teaches: a sensible rewrite raises the live
// score (and the final one: it was not fitted to the live tasks); stuffing descriptions with
// keywords runs over the budget (score 0), and stuffing within the budget scores below the
// rewrite; promotional wording costs points.
func TestWorkshopLesson(t *testing.T) {
	w := examples.TheWorkshop()
	f, err := Parse(w.Challenge)
	if err != nil {
		t.Fatal(err)
	}
	if f.Budget.Tokens != w.Budget {
		t.Fatalf("the challenge file's budget is %d; the example says %d", f.Budget.Tokens, w.Budget)
	}
	score := func(l *listing.Listing, split Split) Result {
		t.Helper()
		r, err := Score(context.Background(), l, f, split)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	start, answer := parseListing(t, w.Start), parseListing(t, w.Answer)
	s, a := score(start, Live), score(answer, Live)
	t.Logf("start: live %d (%d tokens, %d penalty points), final %d", s.Score, s.Tokens, s.PenaltyPoints, score(start, Final).Score)
	t.Logf("rewrite: live %d (%d tokens), final %d", a.Score, a.Tokens, score(answer, Final).Score)
	if s.PenaltyPoints == 0 || s.Penalties[0].Rule != "promotional-wording" {
		t.Errorf("the starting listing's promotion costs nothing: %+v", s.Penalties)
	}
	if a.Score < s.Score+25 || a.PenaltyPoints != 0 || a.OverBudget {
		t.Errorf("the rewrite scores %d live (penalties %d, over %v); want at least 25 above the start's %d", a.Score, a.PenaltyPoints, a.OverBudget, s.Score)
	}
	if fa, fs := score(answer, Final).Score, score(start, Final).Score; fa < fs+25 {
		t.Errorf("the rewrite scores %d on the final split; want at least 25 above the start's %d", fa, fs)
	}
	over := score(stuffed(t, w.Answer, stuffing, 1), Live)
	if !over.OverBudget || over.Score != 0 {
		t.Errorf("keyword stuffing on the rewrite: %d tokens of %d, score %d; want over budget and 0", over.Tokens, over.Budget, over.Score)
	}
	within := score(stuffed(t, w.Start, stuffing, 1), Live)
	t.Logf("stuffed within the budget: live %d (%d tokens)", within.Score, within.Tokens)
	if within.OverBudget || within.Score >= a.Score {
		t.Errorf("stuffing the start within the budget scores %d (%d tokens); want below the rewrite's %d", within.Score, within.Tokens, a.Score)
	}
}

// TestWorkshopDraft: the hidden tasks as the teacher's form takes them make the same challenge
// as the example's challenge file.
func TestWorkshopDraft(t *testing.T) {
	w := examples.TheWorkshop()
	r := newRig(t)
	ctx := context.Background()
	ws, err := r.ws.Create(ctx, "Bike share", parseListing(t, w.Start), mustTasks(t, w.Practice), teacher, "example")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := r.s.Create(ctx, ws.ID, Draft{Title: "Bike share workshop", Hidden: w.Hidden, Budget: Budget{Tokens: w.Budget}}, teacher)
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.s.Get(ctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Parse(w.Challenge)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := Encode(c.File)
	wantB, _ := Encode(want)
	if string(got) != string(wantB) {
		t.Errorf("the draft made another challenge:\n%s\nwant\n%s", got, wantB)
	}
}
