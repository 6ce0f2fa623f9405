package taskformat

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
)

// The YAML formats read files from strangers, so a document is parsed to nodes and measured
// before anything is decoded from it: an alias bomb (a few lines that expand to billions of
// nodes) and deep nesting are refused instead of exhausting memory or the stack.
const (
	// maxYAMLNodes bounds the nodes of a file counted with every alias expanded where used.
	maxYAMLNodes = 1 << 20
	// maxYAMLDepth bounds the nesting of mappings and sequences.
	maxYAMLDepth = 100
	// maxYAMLDocs bounds the documents of a stream (mcpchecker keeps one task a document).
	maxYAMLDocs = 100000
)

// yamlDocuments parses every document of src, refusing a stream over the bounds.
func yamlDocuments(src []byte) ([]*yaml.Node, error) {
	if len(src) > MaxSource {
		return nil, fmt.Errorf("the file is %d bytes; task files are read up to %d", len(src), MaxSource)
	}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var docs []*yaml.Node
	total := 0
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
			return nil, fmt.Errorf("the file holds more than %d YAML documents", maxYAMLDocs)
		}
		m := measure{sizes: map[*yaml.Node]int{}}
		size, err := m.size(&n, 0)
		if err != nil {
			return nil, fmt.Errorf("YAML document %d: %w", len(docs)+1, err)
		}
		if total += size; total > maxYAMLNodes {
			return nil, fmt.Errorf("the YAML expands to more than %d nodes (aliases counted where they are used); write the values out or split the file", maxYAMLNodes)
		}
		docs = append(docs, &n)
	}
}

// decodeYAML decodes src, which must hold one YAML document, into v.
func decodeYAML(src []byte, v any) error {
	docs, err := yamlDocuments(src)
	if err != nil {
		return err
	}
	switch len(docs) {
	case 0:
		return errors.New("the file holds no YAML document")
	case 1:
		return docs[0].Decode(v)
	default:
		return fmt.Errorf("the file holds %d YAML documents; this format keeps one", len(docs))
	}
}

// measure counts a document's nodes with aliases expanded, remembering each anchored node's
// count so that a chain of aliases is measured in linear time.
type measure struct {
	sizes map[*yaml.Node]int
}

func (m *measure) size(n *yaml.Node, depth int) (int, error) {
	if n == nil {
		return 0, nil
	}
	if depth > maxYAMLDepth {
		return 0, fmt.Errorf("line %d: the YAML nests deeper than %d levels", n.Line, maxYAMLDepth)
	}
	if s, ok := m.sizes[n]; ok {
		if s < 0 {
			return 0, fmt.Errorf("line %d: an alias refers to the node that holds it", n.Line)
		}
		return s, nil
	}
	m.sizes[n] = -1 // on the path: an alias back to it is a cycle
	total := 1
	if n.Kind == yaml.AliasNode {
		s, err := m.size(n.Alias, depth+1)
		if err != nil {
			return 0, err
		}
		total += s
	}
	for _, c := range n.Content {
		s, err := m.size(c, depth+1)
		if err != nil {
			return 0, err
		}
		if total += s; total > maxYAMLNodes {
			return 0, fmt.Errorf("line %d: the YAML expands to more than %d nodes (aliases counted where they are used); write the values out or split the file", n.Line, maxYAMLNodes)
		}
	}
	m.sizes[n] = total
	return total, nil
}
