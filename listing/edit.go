package listing

import (
	"fmt"
	"strconv"
	"strings"
)

// OpKind names an edit.
type OpKind string

// The edits. Paths are JSON pointers (RFC 6901) into the listing's result, so every tool is
// under /tools/N.
const (
	// OpSet replaces the value at Path, or adds the member when Path names a missing key of an
	// existing object.
	OpSet OpKind = "set"
	// OpRemove deletes the member or array element at Path.
	OpRemove OpKind = "remove"
	// OpInsert inserts Value into an array before the index Path ends with ("-" appends); at
	// /tools/N it inserts a tool.
	OpInsert OpKind = "insert"
	// OpMove moves the element of the array at Path from index From to index To; at /tools it
	// reorders tools.
	OpMove OpKind = "move"
)

// Op is one edit of a listing.
type Op struct {
	Kind  OpKind `json:"op"`
	Path  string `json:"path"`
	Value *Value `json:"value,omitempty"`
	From  int    `json:"from,omitempty"`
	To    int    `json:"to,omitempty"`
}

// EditError is an edit that cannot be applied.
type EditError struct {
	Op  Op
	Msg string
}

func (e *EditError) Error() string { return fmt.Sprintf("%s %s: %s", e.Op.Kind, e.Op.Path, e.Msg) }

// SplitPointer returns the unescaped reference tokens of a JSON pointer.
func SplitPointer(ptr string) ([]string, error) {
	if ptr == "" {
		return nil, nil
	}
	if ptr[0] != '/' {
		return nil, fmt.Errorf("JSON pointer %q does not start with /", ptr)
	}
	parts := strings.Split(ptr[1:], "/")
	for i, p := range parts {
		if strings.Contains(p, "~") {
			p = strings.ReplaceAll(p, "~1", "/")
			parts[i] = strings.ReplaceAll(p, "~0", "~")
		}
	}
	return parts, nil
}

// JoinPointer builds a JSON pointer from unescaped tokens.
func JoinPointer(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		b.WriteString(strings.ReplaceAll(t, "/", "~1"))
	}
	return b.String()
}

// Resolve returns the value at ptr within root, or nil.
func Resolve(root *Value, ptr string) *Value {
	toks, err := SplitPointer(ptr)
	if err != nil {
		return nil
	}
	v := root
	for _, t := range toks {
		switch {
		case v == nil:
			return nil
		case v.Kind == Object:
			v = v.Get(t)
		case v.Kind == Array:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(v.Items) || t != strconv.Itoa(i) {
				return nil
			}
			v = v.Items[i]
		default:
			return nil
		}
	}
	return v
}

// Get returns the value at ptr in the listing's result (for example /tools/0/description).
func (l *Listing) Get(ptr string) *Value {
	return Resolve(NewObject(Member{Key: "tools", Value: NewArray(l.Tools...)}), ptr)
}

// Apply returns a new listing with op applied; l is unchanged and shares all untouched values.
// Every tool must stay an object with a string name.
func (l *Listing) Apply(op Op) (*Listing, error) {
	toks, err := SplitPointer(op.Path)
	if err != nil {
		return nil, &EditError{op, err.Error()}
	}
	if len(toks) == 0 || toks[0] != "tools" {
		return nil, &EditError{op, "paths start at /tools"}
	}
	if (op.Kind == OpSet || op.Kind == OpInsert) && op.Value == nil {
		return nil, &EditError{op, "no value given"}
	}
	root := NewArray(l.Tools...)
	out, err := edit(root, toks[1:], op)
	if err != nil {
		return nil, &EditError{op, err.Error()}
	}
	if out.Kind != Array {
		return nil, &EditError{op, "the tools must stay an array"}
	}
	// Only the tool an edit went into can have lost its name; checking every tool on every op
	// made a batch of one repair per tool quadratic (a SARIF log of 20,000 tools took minutes).
	from, to := 0, len(out.Items)
	if len(toks) >= 2 {
		if i, err := strconv.Atoi(toks[1]); err == nil && i >= 0 && i < len(out.Items) {
			from, to = i, i+1
		}
	}
	for i := from; i < to; i++ {
		if t := out.Items[i]; !t.IsObject() || !t.Get("name").IsString() {
			return nil, &EditError{op, fmt.Sprintf("tool %d would have no string name", i+1)}
		}
	}
	c := *l // out.Items is already a new slice: copying l.Tools too doubled the work
	c.Tools = out.Items
	return &c, nil
}

// EditValue returns a copy of root with op applied at op.Path (relative to root; "" is root
// itself); root is unchanged and shares all untouched values. Unlike Apply it makes no demand
// on what root holds: it edits any JSON document, such as a task file.
func EditValue(root *Value, op Op) (*Value, error) {
	toks, err := SplitPointer(op.Path)
	if err != nil {
		return nil, &EditError{op, err.Error()}
	}
	if (op.Kind == OpSet || op.Kind == OpInsert) && op.Value == nil {
		return nil, &EditError{op, "no value given"}
	}
	if root == nil {
		return nil, &EditError{op, "no document to edit"}
	}
	out, err := edit(root, toks, op)
	if err != nil {
		return nil, &EditError{op, err.Error()}
	}
	return out, nil
}

// ApplyAll applies ops in order, stopping at the first that fails.
func (l *Listing) ApplyAll(ops []Op) (*Listing, error) {
	cur := l
	for _, op := range ops {
		next, err := cur.Apply(op)
		if err != nil {
			return nil, err
		}
		cur = next
	}
	return cur, nil
}

// edit returns a copy of v with op applied at the path toks (relative to v).
func edit(v *Value, toks []string, op Op) (*Value, error) {
	if len(toks) == 0 {
		return editHere(v, op)
	}
	switch v.Kind {
	case Object:
		return editMember(v, toks, op)
	case Array:
		return editItem(v, toks, op)
	default:
		return nil, fmt.Errorf("cannot go into a %s with %q", v.Kind, toks[0])
	}
}

// editHere applies op to v itself: a set replaces it, a move reorders its items.
func editHere(v *Value, op Op) (*Value, error) {
	switch op.Kind {
	case OpSet:
		return op.Value, nil
	case OpMove:
		if v.Kind != Array {
			return nil, fmt.Errorf("move needs an array, found %s", v.Kind)
		}
		n := len(v.Items)
		if op.From < 0 || op.From >= n || op.To < 0 || op.To >= n {
			return nil, fmt.Errorf("move from %d to %d is outside 0..%d", op.From, op.To, n-1)
		}
		items := append([]*Value(nil), v.Items...)
		it := items[op.From]
		items = append(items[:op.From], items[op.From+1:]...)
		items = append(items[:op.To], append([]*Value{it}, items[op.To:]...)...)
		c := *v
		c.Items = items
		return &c, nil
	default:
		return nil, fmt.Errorf("%s needs a path below the value", op.Kind)
	}
}

// editMember applies op at toks inside the object v, whose member toks[0] is the next step.
// A duplicated key resolves to its last occurrence, as JSON parsers read it.
func editMember(v *Value, toks []string, op Op) (*Value, error) {
	tok, last := toks[0], len(toks) == 1
	idx := -1
	for i := len(v.Members) - 1; i >= 0; i-- {
		if v.Members[i].Key == tok {
			idx = i
			break
		}
	}
	c := *v
	if last && op.Kind == OpRemove {
		if idx < 0 {
			return nil, fmt.Errorf("no member %q", tok)
		}
		c.Members = make([]Member, 0, len(v.Members)-1)
		for _, m := range v.Members {
			if m.Key != tok {
				c.Members = append(c.Members, m)
			}
		}
		c.dupKeys = false
		return &c, nil
	}
	if idx < 0 {
		if !last || op.Kind != OpSet {
			return nil, fmt.Errorf("no member %q", tok)
		}
		c.Members = append(append([]Member(nil), v.Members...), Member{Key: tok, Value: op.Value, KeyPos: -1})
		return &c, nil
	}
	child, err := edit(v.Members[idx].Value, toks[1:], op)
	if err != nil {
		return nil, err
	}
	c.Members = append([]Member(nil), v.Members...)
	c.Members[idx].Value = child
	return &c, nil
}

// editItem applies op at toks inside the array v, whose item toks[0] ("-": past the end) is the
// next step.
func editItem(v *Value, toks []string, op Op) (*Value, error) {
	tok, last := toks[0], len(toks) == 1
	n := len(v.Items)
	i := n
	if tok != "-" {
		var err error
		i, err = strconv.Atoi(tok)
		if err != nil || i < 0 || tok != strconv.Itoa(i) {
			return nil, fmt.Errorf("%q is not an array index", tok)
		}
	}
	c := *v
	if last && op.Kind == OpInsert {
		if i > n {
			return nil, fmt.Errorf("index %d is past the end (%d)", i, n)
		}
		c.Items = make([]*Value, 0, n+1)
		c.Items = append(append(append(c.Items, v.Items[:i]...), op.Value), v.Items[i:]...)
		return &c, nil
	}
	if i >= n {
		return nil, fmt.Errorf("index %d is past the end (%d)", i, n)
	}
	if last && op.Kind == OpRemove {
		c.Items = append(append([]*Value(nil), v.Items[:i]...), v.Items[i+1:]...)
		return &c, nil
	}
	child, err := edit(v.Items[i], toks[1:], op)
	if err != nil {
		return nil, err
	}
	c.Items = append([]*Value(nil), v.Items...)
	c.Items[i] = child
	return &c, nil
}
