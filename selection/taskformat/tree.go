package taskformat

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tool-workbench/workbench/listing"
)

// Bounds of a YAML or JSON document the formats read. A YAML file can say much more than its
// size: an alias repeats a whole subtree, so a few kilobytes of anchors expand to gigabytes.
// The tree is therefore built under a node budget counted after expansion, and a depth limit.
const (
	// MaxYAMLSource bounds a YAML file; test files are small, and YAML parsing costs far more
	// per byte than JSON.
	MaxYAMLSource = 4 << 20
	// MaxTreeNodes bounds the values of a document after aliases are expanded.
	MaxTreeNodes = 1 << 20
	// MaxTreeDepth bounds how deeply arrays and objects nest.
	MaxTreeDepth = 64
)

// readTree parses src, JSON or YAML, into a value tree. JSON is read by the listing parser,
// which keeps number spellings and key order; anything else is read as one YAML document.
func readTree(src []byte) (*listing.Value, error) {
	if len(src) > MaxSource {
		return nil, fmt.Errorf("the file is %d bytes; task files are read up to %d", len(src), MaxSource)
	}
	if err := listing.CheckUTF8(src); err != nil {
		return nil, err
	}
	if t := bytes.TrimLeft(src, " \t\r\n\ufeff"); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		if v, err := listing.ParseJSON(src); err == nil {
			if d, p := listing.Deepest(v); d > MaxTreeDepth {
				return nil, fmt.Errorf("the file nests arrays and objects %d levels deep (at %s); task files are read up to %d", d, p, MaxTreeDepth)
			}
			return v, nil
		} else if looksJSON(t) {
			return nil, err
		}
	}
	return readYAML(src)
}

// looksJSON tells a JSON file with a mistake from YAML in flow style: a JSON object's first
// key is quoted.
func looksJSON(t []byte) bool {
	rest := bytes.TrimLeft(t[1:], " \t\r\n")
	return t[0] == '[' || len(rest) == 0 || rest[0] == '"' || rest[0] == '}'
}

func readYAML(src []byte) (*listing.Value, error) {
	if len(src) > MaxYAMLSource {
		return nil, fmt.Errorf("the YAML file is %d bytes; YAML task files are read up to %d (JSON up to %d)", len(src), MaxYAMLSource, MaxSource)
	}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("the file is empty; a task file holds a YAML or JSON document")
		}
		return nil, fmt.Errorf("the file is neither JSON nor YAML: %w", err)
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return nil, errors.New("the file holds several YAML documents (---); keep one document per file")
	}
	b := &treeBuilder{budget: MaxTreeNodes}
	return b.value(&doc, 0)
}

type treeBuilder struct{ budget int }

var errTreeBudget = fmt.Errorf("the YAML expands to more than %d values (aliases repeat what their anchors hold); write the values out, or use fewer aliases", MaxTreeNodes)

// value converts one YAML node, expanding aliases, within the node budget and depth limit.
func (b *treeBuilder) value(n *yaml.Node, depth int) (*listing.Value, error) {
	if b.budget--; b.budget < 0 {
		return nil, errTreeBudget
	}
	if depth > MaxTreeDepth {
		return nil, fmt.Errorf("line %d: the YAML nests more than %d levels deep; task files are read up to %d", n.Line, MaxTreeDepth, MaxTreeDepth)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return listing.NewNull(), nil
		}
		return b.value(n.Content[0], depth)
	case yaml.AliasNode:
		return b.value(n.Alias, depth+1)
	case yaml.SequenceNode:
		items := make([]*listing.Value, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := b.value(c, depth+1)
			if err != nil {
				return nil, err
			}
			items = append(items, v)
		}
		return listing.NewArray(items...), nil
	case yaml.MappingNode:
		return b.mapping(n, depth)
	case yaml.ScalarNode:
		return scalar(n), nil
	}
	return nil, fmt.Errorf("line %d: a YAML node of kind %d has no JSON form", n.Line, n.Kind)
}

func (b *treeBuilder) mapping(n *yaml.Node, depth int) (*listing.Value, error) {
	var members []listing.Member
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			// "<<: *anchor" merges the anchored mapping's members in.
			merged, err := b.value(v, depth+1)
			if err != nil {
				return nil, err
			}
			for _, m := range mergeSources(merged) {
				members = append(members, m.Members...)
			}
			continue
		}
		if k.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("line %d: a mapping key is a %s; keys must be plain strings", k.Line, kindName(k))
		}
		val, err := b.value(v, depth+1)
		if err != nil {
			return nil, err
		}
		members = append(members, listing.Member{Key: k.Value, Value: val, KeyPos: -1})
	}
	return listing.NewObject(members...), nil
}

// mergeSources is the mappings a merge key names: one mapping or a sequence of them.
func mergeSources(v *listing.Value) []*listing.Value {
	if v.Kind == listing.Object {
		return []*listing.Value{v}
	}
	var out []*listing.Value
	for _, it := range v.Items {
		if it.Kind == listing.Object {
			out = append(out, it)
		}
	}
	return out
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "sequence"
	case yaml.MappingNode:
		return "mapping"
	}
	return "alias"
}

// scalar converts a YAML scalar by its resolved tag: numbers keep a JSON spelling, and what
// JSON has no number for (.inf, .nan, timestamps, binary) stays the text it was written as.
func scalar(n *yaml.Node) *listing.Value {
	switch n.ShortTag() {
	case "!!null":
		return listing.NewNull()
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return listing.NewBool(b)
		}
	case "!!int":
		var i int64
		if n.Decode(&i) == nil {
			return listing.NewNumber(strconv.FormatInt(i, 10))
		}
		var u uint64
		if n.Decode(&u) == nil {
			return listing.NewNumber(strconv.FormatUint(u, 10))
		}
	case "!!float":
		var f float64
		if n.Decode(&f) == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return listing.NewNumber(strconv.FormatFloat(f, 'g', -1, 64))
		}
	}
	return listing.NewString(n.Value)
}

// Writing YAML: documents are built as yaml.Node trees so that keys come out in the order the
// format's own examples use.

func ystr(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if strings.Contains(s, "\n") {
		n.Style = yaml.LiteralStyle
	}
	return n
}

func yscalar(tag, s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: s} }

func ymap(kv ...any) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i+1 < len(kv); i += 2 {
		n.Content = append(n.Content, ystr(kv[i].(string)), kv[i+1].(*yaml.Node))
	}
	return n
}

// yadd appends a key and value to a mapping node.
func yadd(m *yaml.Node, key string, v *yaml.Node) { m.Content = append(m.Content, ystr(key), v) }

func yseq(items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: items}
}

func ystrs(ss []string) *yaml.Node {
	n := yseq()
	for _, s := range ss {
		n.Content = append(n.Content, ystr(s))
	}
	return n
}

// yvalue converts a JSON value (a tool's arguments) to YAML.
func yvalue(v *listing.Value) *yaml.Node {
	switch v.Kind {
	case listing.Null:
		return yscalar("!!null", "null")
	case listing.Bool:
		return yscalar("!!bool", strconv.FormatBool(v.Bool))
	case listing.Number:
		if _, err := strconv.ParseFloat(v.Str, 64); err != nil {
			return ystr(v.Str) // NaN, Infinity: YAML spells them otherwise; keep the text
		}
		if strings.ContainsAny(v.Str, ".eE") {
			return yscalar("!!float", v.Str)
		}
		return yscalar("!!int", v.Str)
	case listing.String:
		return ystr(v.Str)
	case listing.Array:
		n := yseq()
		for _, it := range v.Items {
			n.Content = append(n.Content, yvalue(it))
		}
		return n
	}
	n := ymap()
	for _, m := range v.Fields() {
		yadd(n, m.Key, yvalue(m.Value))
	}
	return n
}

// encodeYAML writes a document, the mapping head with a leading comment and then key holding
// items. Each item is encoded by itself and indented under key: yaml's emitter queues the
// events of a whole document and shifts that queue as it goes, so one document of 10,000
// tests took 3 s and 700 MB to write; item by item it takes a fraction of that.
func encodeYAML(comment string, head *yaml.Node, key string, items []*yaml.Node) ([]byte, error) {
	head.HeadComment = comment
	var buf bytes.Buffer
	if err := encodeNode(&buf, head); err != nil {
		return nil, err
	}
	if len(items) == 0 {
		buf.WriteString(key + ": []\n")
		return buf.Bytes(), nil
	}
	buf.WriteString(key + ":\n")
	var one bytes.Buffer
	for _, it := range items {
		one.Reset()
		if err := encodeNode(&one, yseq(it)); err != nil {
			return nil, err
		}
		for _, line := range bytes.SplitAfter(one.Bytes(), []byte("\n")) {
			if len(line) > 1 {
				buf.WriteString("  ")
			}
			buf.Write(line)
		}
	}
	return buf.Bytes(), nil
}

func encodeNode(w *bytes.Buffer, n *yaml.Node) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{n}}); err != nil {
		return fmt.Errorf("encode YAML: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("encode YAML: %w", err)
	}
	return nil
}

// lossList collects the losses of one Read or Write.
type lossList []Loss

func (l *lossList) add(i int, id, field, format string, args ...any) {
	*l = append(*l, Loss{Case: i, ID: id, Field: field, Message: fmt.Sprintf(format, args...)})
}

// brief shows a value in a loss message, cut short.
func brief(v *listing.Value) string {
	s := string(listing.Marshal(v, ""))
	if v.Kind == listing.String {
		s = strconv.Quote(v.Str)
	}
	if r := []rune(s); len(r) > 60 {
		s = string(r[:57]) + "..."
	}
	return s
}

// strList reads a string or an array of strings; ok is false for anything else.
func strList(v *listing.Value) ([]string, bool) {
	if v == nil {
		return nil, false
	}
	if v.Kind == listing.String {
		return []string{v.Str}, true
	}
	if v.Kind != listing.Array {
		return nil, false
	}
	out := make([]string, 0, len(v.Items))
	for _, it := range v.Items {
		if it.Kind != listing.String {
			return nil, false
		}
		out = append(out, it.Str)
	}
	return out, true
}

// addCall adds a call to expect, merging it into an earlier call of the same tool (a check
// that the tool was called and one of its arguments are one expectation).
func addCall(expect []Call, c Call) []Call {
	for i := range expect {
		if expect[i].Tool != c.Tool {
			continue
		}
		switch {
		case c.Args == nil:
			return expect
		case expect[i].Args == nil:
			expect[i].Args = c.Args
			return expect
		case listing.Equal(expect[i].Args, c.Args):
			return expect
		}
	}
	return append(expect, c)
}
