// Package examples holds the workbench's built-in teaching examples: one small server (a public
// library's book-lending desk) written three times, from confusing names and one-line
// descriptions to a clear set, each with a task file. The ranker shows the improvement: more
// tasks pick the expected tool clearly at each draft (see examples_test.go).
//
// It also holds a workshop (Workshop): a city bike-share server whose starting descriptions are
// poor in ways the lint and the ranker catch, practice tasks every participant sees, hidden
// tasks in two splits for a challenge, and a rewrite that scores well (package challenge's
// tests show the lesson: the rewrite raises the score, keyword stuffing loses it).
package examples

import (
	"embed"
	"fmt"
)

//go:embed library/*.json workshop/*.json
var files embed.FS

// Example is one listing with its task file.
type Example struct {
	ID      string
	Title   string
	Blurb   string
	Listing []byte
	Tasks   []byte
}

var all = []struct{ id, title, blurb, listing, tasks string }{
	{"library-1-confusing", "Library desk, draft 1: confusing",
		"Generic names (get_info, search, update) and descriptions of two or three words.",
		"library/1-confusing.json", "library/tasks-confusing.json"},
	{"library-2-draft", "Library desk, draft 2: a first real draft",
		"Object-first names, a sentence per tool, described parameters; a few tasks still go astray.",
		"library/2-draft.json", "library/tasks.json"},
	{"library-3-clear", "Library desk, draft 3: clear",
		"The draft reworded with the words people use for each task; every task picks its tool.",
		"library/3-clear.json", "library/tasks.json"},
	{WorkshopID, "Workshop: bike share, the starting listing",
		"A city bike-share server with vague, confusable and promotional descriptions: make a challenge from it (its hidden tasks are in examples/workshop).",
		"workshop/start.json", "workshop/practice.json"},
}

// WorkshopID is the example that is the workshop's starting listing.
const WorkshopID = "workshop-bikes"

// Workshop is the built-in workshop: the starting listing and practice tasks (the example
// WorkshopID), the hidden tasks as the teacher's form takes them (a task file, each tagged
// "live" or "final"), the same challenge as a challenge file (`workbench challenge score
// --hidden`), and a rewrite of the starting listing that scores well.
type Workshop struct {
	Start, Practice, Hidden, Challenge, Answer []byte
	// Budget is the token budget the challenge file sets: room for a clear rewrite with
	// described parameters, not for stuffing descriptions with keywords.
	Budget int
}

// TheWorkshop returns the built-in workshop.
func TheWorkshop() Workshop {
	read := func(name string) []byte {
		b, err := files.ReadFile("workshop/" + name)
		if err != nil {
			panic(fmt.Sprintf("examples: workshop/%s missing from the embedded files: %v", name, err))
		}
		return b
	}
	return Workshop{Start: read("start.json"), Practice: read("practice.json"), Hidden: read("hidden.json"),
		Challenge: read("challenge.json"), Answer: read("answer.json"), Budget: 600}
}

// All returns the examples in teaching order.
func All() []Example {
	out := make([]Example, 0, len(all))
	for _, e := range all {
		out = append(out, load(e.id, e.title, e.blurb, e.listing, e.tasks))
	}
	return out
}

// Get returns the example with id.
func Get(id string) (Example, bool) {
	for _, e := range all {
		if e.id == id {
			return load(e.id, e.title, e.blurb, e.listing, e.tasks), true
		}
	}
	return Example{}, false
}

func load(id, title, blurb, lp, tp string) Example {
	l, err := files.ReadFile(lp)
	if err != nil {
		panic(fmt.Sprintf("examples: %s missing from the embedded files: %v", lp, err))
	}
	t, err := files.ReadFile(tp)
	if err != nil {
		panic(fmt.Sprintf("examples: %s missing from the embedded files: %v", tp, err))
	}
	return Example{ID: id, Title: title, Blurb: blurb, Listing: l, Tasks: t}
}
