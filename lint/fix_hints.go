package lint

import (
	"fmt"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/words"
)

func init() {
	for _, id := range []string{"annotations", "annotations-missing", "annotations-assumed-destructive"} {
		repairers[id] = repairHints
	}
	repairers["annotations-readonly-writes"] = repairReadonlyWrites
	repairers["annotations-destructive-unmarked"] = repairDestructiveUnmarked
	repairers["annotations-contradict"] = repairContradict
}

// additiveWords are the write verbs that only add: their tools get destructiveHint: false (the
// specification: false means the tool performs only additive updates); every other write verb
// may overwrite or delete, and gets true.
var additiveWords = set("create add insert post send publish upload append comment")

// moreWriteVerbs are verbs that change state which the linter's write lists leave out; their
// tools get destructiveHint: true, what a host assumes anyway, said explicitly.
var moreWriteVerbs = set("reopen assign unassign archive restore import approve reject schedule enable disable start stop restart scale apply")

// hint is one behaviour hint a repair proposes.
type hint struct {
	key string
	val bool
}

// nameVerb returns the first word of name that is a read or write verb, and whether it reads.
func nameVerb(name string) (verb string, reads bool) {
	if arithmetic(name) {
		return "add", true
	}
	for _, w := range words.Tokens(name) {
		switch {
		case words.ReadVerbs[w]:
			return w, true
		case words.WriteVerbs[w], writeWords[w], destructiveWords[w], moreWriteVerbs[w]:
			return w, false
		}
	}
	return "", false
}

// proposedHints are the hints the name's verb implies: readOnlyHint: true for a read verb; for
// a write verb destructiveHint (false for one that only adds), then readOnlyHint: false.
func proposedHints(name string) (string, []hint) {
	verb, reads := nameVerb(name)
	switch {
	case verb == "":
		return "", nil
	case reads && nameWord(name, writeWords) != "" && !arithmetic(name):
		return "", nil // query_update: annotations-readonly-writes would refuse the read hint
	case reads:
		return verb, []hint{{"readOnlyHint", true}}
	}
	return verb, []hint{{"destructiveHint", !additiveWords[verb]}, {"readOnlyHint", false}}
}

// setHint is the op that sets one hint of tool i, making the annotations object when absent;
// nil when annotations is there but not an object.
func setHint(t *listing.Value, i int, h hint) *listing.Op {
	a := t.Get("annotations")
	base := "/tools/" + itoa(i) + "/annotations"
	switch {
	case a == nil:
		obj := listing.NewObject(listing.Member{Key: h.key, Value: listing.NewBool(h.val), KeyPos: -1})
		return &listing.Op{Kind: listing.OpSet, Path: base, Value: obj}
	case a.IsObject():
		return &listing.Op{Kind: listing.OpSet, Path: base + "/" + h.key, Value: listing.NewBool(h.val)}
	}
	return nil
}

// repairHints proposes each hint the name's verb implies that the tool does not set, one repair
// a hint; for annotations-assumed-destructive only destructiveHint.
func repairHints(c *fixCtx, f Finding) []Repair {
	l := c.l
	t, _ := findingTool(l, f)
	if t == nil {
		return nil
	}
	verb, hs := proposedHints(t.Get("name").String())
	var out []Repair
	for _, h := range hs {
		a := t.Get("annotations")
		if a.Get(h.key) != nil || f.Rule == "annotations-assumed-destructive" && h.key != "destructiveHint" {
			continue
		}
		if de := a.Get("destructiveHint"); h.key == "readOnlyHint" && h.val && de != nil && de.Kind == listing.Bool && de.Bool {
			continue // the tool says it destroys: a person settles which is right
		}
		if op := setHint(t, f.ToolIndex, h); op != nil {
			title := fmt.Sprintf("Set %s: %t (the name says %q)", h.key, h.val, verb)
			out = append(out, newRepair(l, f, fmt.Sprintf("%s=%t", h.key, h.val), title, *op))
		}
	}
	return out
}

// repairReadonlyWrites sets readOnlyHint to false on a tool whose name writes, and, when the tool
// does not say, destructiveHint as its verb implies: a tool that writes and says nothing of
// destruction would otherwise be one a host assumes destroys.
func repairReadonlyWrites(c *fixCtx, f Finding) []Repair {
	l := c.l
	t, _ := findingTool(l, f)
	if t == nil || !t.Get("annotations").IsObject() {
		return nil
	}
	w := nameWord(t.Get("name").String(), writeWords)
	if w == "" {
		return nil
	}
	base := "/tools/" + itoa(f.ToolIndex) + "/annotations/"
	ops := []listing.Op{{Kind: listing.OpSet, Path: base + "readOnlyHint", Value: listing.NewBool(false)}}
	title := fmt.Sprintf("Set readOnlyHint: false (the name says %q)", w)
	if t.Get("annotations").Get("destructiveHint") == nil {
		d := !additiveWords[w]
		ops = append(ops, listing.Op{Kind: listing.OpSet, Path: base + "destructiveHint", Value: listing.NewBool(d)})
		title += fmt.Sprintf(" and destructiveHint: %t", d)
	}
	return []Repair{newRepair(l, f, "", title, ops...)}
}

// repairDestructiveUnmarked sets destructiveHint to true on a tool whose name destroys.
func repairDestructiveUnmarked(c *fixCtx, f Finding) []Repair {
	l := c.l
	t, toks := findingTool(l, f)
	if t == nil || len(toks) != 2 || toks[1] != "destructiveHint" {
		return nil
	}
	w := nameWord(t.Get("name").String(), destructiveWords)
	return []Repair{newRepair(l, f, "", fmt.Sprintf("Set destructiveHint: true (the name says %q)", w),
		listing.Op{Kind: listing.OpSet, Path: f.Pointer, Value: listing.NewBool(true)})}
}

// repairContradict settles readOnlyHint: true with destructiveHint: true by the name's verb: a
// name that writes loses readOnlyHint, a name that reads loses destructiveHint. A hint that is
// not a boolean, or a name without a verb, needs a person.
func repairContradict(c *fixCtx, f Finding) []Repair {
	l := c.l
	t, toks := findingTool(l, f)
	if t == nil || len(toks) != 2 || toks[1] != "destructiveHint" {
		return nil
	}
	a := t.Get("annotations")
	ro, de := a.Get("readOnlyHint"), a.Get("destructiveHint")
	if ro == nil || ro.Kind != listing.Bool || !ro.Bool || de == nil || de.Kind != listing.Bool || !de.Bool {
		return nil
	}
	verb, reads := nameVerb(t.Get("name").String())
	if verb == "" {
		return nil
	}
	key := "readOnlyHint"
	if reads {
		key = "destructiveHint"
	}
	return []Repair{newRepair(l, f, key, fmt.Sprintf("Set %s: false (the name says %q)", key, verb),
		listing.Op{Kind: listing.OpSet, Path: "/tools/" + itoa(f.ToolIndex) + "/annotations/" + key, Value: listing.NewBool(false)})}
}
