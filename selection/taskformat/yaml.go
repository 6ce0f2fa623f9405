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

// Bounds of a YAML or JSON file the formats read, one set for every format. A YAML file can
// say much more than its size: an alias repeats a whole subtree, so a few kilobytes of anchors
// expand to gigabytes. Every document is therefore measured, aliases counted where they are
// used, before anything is built or decoded from it.
const (
	// MaxYAMLSource bounds a YAML file; test files are small, and YAML parsing costs far more
	// per byte than JSON.
	MaxYAMLSource = 4 << 20
	// MaxTreeNodes bounds the values of a file, all its documents together, after aliases are
	// expanded.
	MaxTreeNodes = 1 << 20
	// MaxTreeDepth bounds how deeply arrays and objects (mappings and sequences) nest.
	MaxTreeDepth = 64
	// maxYAMLDocs bounds the documents of a stream (mcpchecker keeps one task a document).
	maxYAMLDocs = 100000
)

// checkSource refuses a file over MaxSource or not in UTF-8, before any format parses it.
func checkSource(src []byte) error {
	if len(src) > MaxSource {
		return fmt.Errorf("the file is %d bytes; task files are read up to %d", len(src), MaxSource)
	}
	return listing.CheckUTF8(src)
}

// readJSON parses a JSON file into a value tree, keeping number spellings and key order,
// within the size and depth bounds.
func readJSON(src []byte) (*listing.Value, error) {
	if err := checkSource(src); err != nil {
		return nil, err
	}
	v, err := listing.ParseJSON(src)
	if err != nil {
		return nil, fmt.Errorf("the JSON does not parse: %w", err)
	}
	if d, p := listing.Deepest(v); d > MaxTreeDepth {
		return nil, fmt.Errorf("the file nests arrays and objects %d levels deep (at %s), deeper than %d levels; flatten it", d, p, MaxTreeDepth)
	}
	return v, nil
}

// readTree parses src, JSON or YAML, into a value tree. JSON is read by readJSON; anything
// else, and YAML in flow style, is read as one YAML document.
func readTree(src []byte) (*listing.Value, error) {
	if err := checkSource(src); err != nil {
		return nil, err
	}
	if t := bytes.TrimLeft(src, " \t\r\n\ufeff"); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		if v, err := readJSON(src); err == nil || looksJSON(t) {
			return v, err
		}
	}
	doc, err := yamlDocument(src)
	if err != nil {
		return nil, err
	}
	return treeValue(doc), nil
}

// looksJSON tells a JSON file with a mistake from YAML in flow style: a JSON object's first
// key is quoted.
func looksJSON(t []byte) bool {
	rest := bytes.TrimLeft(t[1:], " \t\r\n")
	return t[0] == '[' || len(rest) == 0 || rest[0] == '"' || rest[0] == '}'
}

// yamlDocuments parses every document of src, refusing a stream over the bounds.
func yamlDocuments(src []byte) ([]*yaml.Node, error) {
	if err := checkSource(src); err != nil {
		return nil, err
	}
	if len(src) > MaxYAMLSource {
		return nil, fmt.Errorf("the YAML file is %d bytes; YAML task files are read up to %d (JSON up to %d)", len(src), MaxYAMLSource, MaxSource)
	}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var docs []*yaml.Node
	m := measure{sizes: map[*yaml.Node]int{}}
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("the YAML does not parse: %w", err)
		}
		if len(docs) == maxYAMLDocs {
			return nil, fmt.Errorf("the file holds more than %d YAML documents; split it", maxYAMLDocs)
		}
		if _, err := m.size(&n, 0); err != nil {
			return nil, err // its line says where, in the whole stream
		}
		docs = append(docs, &n)
	}
}

// yamlDocument parses src, which must hold one YAML document.
func yamlDocument(src []byte) (*yaml.Node, error) {
	docs, err := yamlDocuments(src)
	if err != nil {
		return nil, err
	}
	switch len(docs) {
	case 0:
		return nil, errors.New("the file is empty; a task file holds a YAML or JSON document")
	case 1:
		return docs[0], nil
	}
	return nil, fmt.Errorf("the file holds %d YAML documents (---); this format keeps one document per file", len(docs))
}

// decodeYAML decodes src, which must hold one YAML document, into v.
func decodeYAML(src []byte, v any) error {
	doc, err := yamlDocument(src)
	if err != nil {
		return err
	}
	return doc.Decode(v)
}

// measure counts a stream's nodes with aliases expanded, remembering each node's count so
// that a chain of aliases is measured in linear time; total runs over all documents.
type measure struct {
	sizes map[*yaml.Node]int
	total int
}

var errTooManyNodes = fmt.Errorf("the YAML expands to more than %d values (aliases repeat what their anchors hold); write the values out, or use fewer aliases", MaxTreeNodes)

func (m *measure) size(n *yaml.Node, depth int) (int, error) {
	if depth > MaxTreeDepth {
		return 0, fmt.Errorf("line %d: the YAML nests deeper than %d levels; flatten it", n.Line, MaxTreeDepth)
	}
	if s, ok := m.sizes[n]; ok {
		if s < 0 {
			return 0, fmt.Errorf("line %d: an alias refers to the node that holds it", n.Line)
		}
		if m.total += s; m.total > MaxTreeNodes {
			return 0, errTooManyNodes
		}
		return s, nil
	}
	m.sizes[n] = -1 // on the path: an alias back to it is a cycle
	total := 1
	if m.total++; m.total > MaxTreeNodes {
		return 0, errTooManyNodes
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Kind != yaml.ScalarNode {
				return 0, fmt.Errorf("line %d: a mapping key is a %s; keys must be plain strings", k.Line, kindName(k))
			}
		}
	}
	kids := n.Content
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		kids = []*yaml.Node{n.Alias}
	}
	for _, c := range kids {
		s, err := m.size(c, depth+1)
		if err != nil {
			return 0, err
		}
		total += s
	}
	m.sizes[n] = total
	return total, nil
}

// treeValue converts a measured YAML document to a value tree, expanding aliases; the
// measure has bounded its size and depth.
func treeValue(n *yaml.Node) *listing.Value {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return listing.NewNull()
		}
		return treeValue(n.Content[0])
	case yaml.AliasNode:
		return treeValue(n.Alias)
	case yaml.SequenceNode:
		items := make([]*listing.Value, 0, len(n.Content))
		for _, c := range n.Content {
			items = append(items, treeValue(c))
		}
		return listing.NewArray(items...)
	case yaml.MappingNode:
		return treeMapping(n)
	}
	return scalar(n)
}

// treeMapping converts a mapping, whose keys the measure has found to be scalars.
func treeMapping(n *yaml.Node) *listing.Value {
	var members []listing.Member
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
			// "<<: *anchor" merges the anchored mapping's members in.
			for _, m := range mergeSources(treeValue(v)) {
				members = append(members, m.Members...)
			}
			continue
		}
		members = append(members, listing.Member{Key: k.Value, Value: treeValue(v), KeyPos: -1})
	}
	return listing.NewObject(members...)
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
	b, err := marshalYAML(head)
	if err != nil {
		return nil, err
	}
	buf := bytes.NewBuffer(b)
	if len(items) == 0 {
		buf.WriteString(key + ": []\n")
		return buf.Bytes(), nil
	}
	buf.WriteString(key + ":\n")
	for _, it := range items {
		one, err := marshalYAML(yseq(it))
		if err != nil {
			return nil, err
		}
		for _, line := range bytes.SplitAfter(one, []byte("\n")) {
			if len(line) > 1 {
				buf.WriteString("  ")
			}
			buf.Write(line)
		}
	}
	return buf.Bytes(), nil
}

// marshalYAML writes each value as one document of a stream, indented by two spaces.
func marshalYAML(docs ...any) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	for _, d := range docs {
		if err := enc.Encode(d); err != nil {
			return nil, fmt.Errorf("encode YAML: %w", err)
		}
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode YAML: %w", err)
	}
	return buf.Bytes(), nil
}
