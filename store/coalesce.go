package store

import (
	"time"

	"github.com/tool-workbench/workbench/listing"
)

// CoalesceWindow is how long after a person's last edit to a field their next edit to the same
// field still extends that revision: a burst of typing is one revision, a pause of a few seconds
// starts the next.
const CoalesceWindow = 5 * time.Second

// MaxCoalescedEdits bounds the edits one revision gathers, so that typing without pause for
// minutes still leaves steps in history to go back to.
const MaxCoalescedEdits = 500

// FieldOf returns the JSON pointer that ops set when they are all set ops at one path (typing
// in one field), or one removal of a member of a tool (a field cleared: the last keystroke of
// a burst that empties it), and "" otherwise: removals of tools, insertions, moves and
// multi-field edits never coalesce.
func FieldOf(ops []listing.Op) string {
	if len(ops) == 0 {
		return ""
	}
	f := ops[0].Path
	if len(ops) == 1 && ops[0].Kind == listing.OpRemove {
		if toks, err := listing.SplitPointer(f); err == nil && len(toks) >= 3 && toks[0] == "tools" {
			return f
		}
		return ""
	}
	for _, op := range ops {
		if op.Kind != listing.OpSet || op.Path != f || f == "" {
			return ""
		}
	}
	return f
}

// Coalesces reports whether edit e extends the head revision rather than starting a new one:
// the head is an edit revision, not named nor sealed (a sign-off or a run on it clears its
// Field: what was signed or run never grows), by the same author (display name and ID),
// setting the same single field,
// its last edit at most CoalesceWindow before e (and not after it: a clock that went back
// starts a new revision), and not yet full; an Alone edit never extends the head.
func Coalesces(head Revision, e Edit) bool {
	return !e.Alone && coalesces(head, KindEdit, FieldOf(e.Ops), e.Author, e.AuthorID, e.Now)
}

// CoalescesTasks is Coalesces for a task-file edit: it extends a KindTasks head whose edits
// set the same field of the task file.
func CoalescesTasks(head Revision, t TaskEdit) bool {
	return coalesces(head, KindTasks, t.Field, t.Author, t.AuthorID, t.Now)
}

func coalesces(head Revision, kind RevisionKind, field, author, authorID string, at time.Time) bool {
	gap := at.Sub(head.Updated)
	return head.Number > 0 &&
		head.Kind == kind &&
		head.Name == "" &&
		field != "" && head.Field == field &&
		head.Author == author && head.AuthorID == authorID &&
		gap >= 0 && gap <= CoalesceWindow &&
		head.Edits < MaxCoalescedEdits
}
