package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tool-workbench/workbench/api"
	"github.com/tool-workbench/workbench/review"
	"github.com/tool-workbench/workbench/store"
)

// tooLargeError is an API answer over reviewMaxBytes.
type tooLargeError struct{ host string }

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("the answer of %s is over %d MiB; is the URL a workbench's workspace?", e.host, reviewMaxBytes>>20)
}

// tooLargeReview says what to do when a review's answer was too large: only the whole
// threads can be (a summary is at most a few hundred bytes a thread, and the comments of a
// workspace are bounded by store.MaxComments).
func tooLargeReview(err error, threads string) error {
	var tl *tooLargeError
	if !errors.As(err, &tl) || threads != "all" {
		return err
	}
	return fmt.Errorf("the review of the workbench at %s is over %d MiB with its threads whole, too large to print; use --format text, which asks each thread's summary only (or GET …/review?threads=summary)", tl.host, reviewMaxBytes>>20)
}

// decodeReview reads GET …/review's answer into ans: the threads whole (all, each comment
// given its thread's anchor back), a summary each
// (made into threads that hold what reviewText prints: the first comment clipped, as many
// empty replies as it counts, bounded by the store's limit) or none.
func decodeReview(data []byte, threads string, ans *reviewAnswer) error {
	if threads != "summary" {
		if err := json.Unmarshal(data, ans); err != nil {
			return err
		}
		// The API sends a thread's anchor once; its comments are printed with it, as the
		// store's are.
		for i := range ans.Threads {
			t := &ans.Threads[i]
			t.First.Anchor = t.Anchor
			for j := range t.Replies {
				t.Replies[j].Anchor = t.Anchor
			}
		}
		return nil
	}
	var raw struct {
		Status  json.RawMessage           `json:"status"`
		Threads []api.ReviewThreadSummary `json:"threads"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if err := json.Unmarshal(raw.Status, &ans.Status); err != nil {
		return err
	}
	ans.Threads = make([]review.Thread, 0, len(raw.Threads))
	for _, s := range raw.Threads {
		ans.Threads = append(ans.Threads, threadOf(s))
	}
	return nil
}

// threadOf is a thread summary as a review.Thread for reviewText.
func threadOf(s api.ReviewThreadSummary) (t review.Thread) {
	t.ID, t.Label, t.Tool, t.Index = s.ID, s.Label, s.Tool, s.Index
	t.Resolved, t.Outdated, t.Gone = s.Resolved, s.Outdated, s.Gone
	t.First = store.Comment{ID: s.ID, Author: s.Author, AuthorID: s.AuthorID, Body: s.First, Created: s.Created}
	t.Replies = make([]store.Comment, min(max(s.Replies, 0), store.MaxComments))
	return t
}
