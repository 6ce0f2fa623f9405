package selection

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/listing"
)

// hostileNames are tool names that break markup written carelessly.
var hostileNames = []string{`say "hi"`, `it's`, `<script>alert(1)</script>`, `x]]>y`, "cr\rlf\nname", `a&b`, `</text><text>`, "tab\there"}

// TestOverlapSVGHostileNames checks that the heat map is well-formed XML whatever the names,
// that names appear only as character data (never in an attribute), and that every cell has a
// title that names its pair.
func TestOverlapSVGHostileNames(t *testing.T) {
	var tools []map[string]any
	for _, n := range hostileNames {
		// The same words everywhere, so that every pair competes.
		tools = append(tools, map[string]any{"name": n, "description": "Read the shared ticket record " + n})
	}
	src, err := json.Marshal(tools)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Overlap(context.Background(), parse(t, string(src)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Pairs) == 0 {
		t.Fatal("no pairs: the test needs tools that compete")
	}
	var buf bytes.Buffer
	if err := m.WriteSVG(&buf); err != nil {
		t.Fatal(err)
	}
	if s := buf.String(); strings.Contains(s, "<script") || strings.Contains(s, "]]>") {
		t.Fatalf("raw markup from a name in the SVG:\n%s", s)
	}
	d := xml.NewDecoder(&buf)
	texts, cells := map[string]bool{}, 0
	var in []string
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			in = append(in, tok.Name.Local)
			for _, a := range tok.Attr {
				for _, n := range hostileNames {
					if strings.Contains(a.Value, n) || strings.ContainsAny(a.Value, "<>\"'&\r\n") {
						t.Errorf("attribute %s=%q of <%s> carries user text", a.Name.Local, a.Value, tok.Name.Local)
					}
				}
			}
			if tok.Name.Local == "rect" {
				cells++
			}
		case xml.EndElement:
			in = in[:len(in)-1]
		case xml.CharData:
			if len(in) > 0 {
				texts[in[len(in)-1]+":"+string(tok)] = true
			}
		}
	}
	for _, n := range hostileNames {
		if !texts["text:"+n] {
			t.Errorf("name %q is not a label of its own", n)
		}
	}
	if want := 2 * len(m.Pairs); cells != want {
		t.Errorf("%d cells, want %d (both halves of %d pairs)", cells, want, len(m.Pairs))
	}
	titled := 0
	for k := range texts {
		if strings.HasPrefix(k, "title:") && strings.Contains(k, " / ") && strings.Contains(k, "strength") {
			titled++
		}
	}
	if titled != len(m.Pairs) {
		t.Errorf("%d distinct cell titles, want one per pair (%d)", titled, len(m.Pairs))
	}
}

// TestOverlapSVGBounded checks that past MaxSVGTools the map shows at most that many tools and
// says so.
func TestOverlapSVGBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := range MaxSVGTools + 50 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"name": "t%d", "description": "Handle group%d item%d and group%d"}`, i, i/3, i, (i+1)/3)
	}
	b.WriteString("]")
	m, err := Overlap(context.Background(), parse(t, b.String()), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := m.WriteSVG(&out); err != nil {
		t.Fatal(err)
	}
	labels := strings.Count(out.String(), `<text id="tool-`)
	if labels > MaxSVGTools || labels == 0 {
		t.Errorf("%d tools drawn; want 1 to %d", labels, MaxSVGTools)
	}
	if !strings.Contains(out.String(), "only the clusters of the strongest pairs are shown") {
		t.Error("the SVG does not say that it shows only some tools")
	}
}

// FuzzOverlapSVG maps listings of fuzzed names and descriptions and checks that the heat map
// is always well-formed XML with no markup from the input.
func FuzzOverlapSVG(f *testing.F) {
	for _, n := range hostileNames {
		f.Add(n, "Read the shared ticket record")
	}
	f.Add("\x00\xff\ufffe", "]]><!--")
	f.Fuzz(func(t *testing.T, name, desc string) {
		tools := []map[string]any{
			{"name": name, "description": desc + " shared record"},
			{"name": name + "_2", "description": "shared record " + name},
			{"name": "other", "description": desc},
		}
		src, err := json.Marshal(tools)
		if err != nil {
			t.Skip()
		}
		l, err := listing.Parse(src, listing.Options{})
		if err != nil {
			return // names the listing refuses never reach the map
		}
		m, err := Overlap(context.Background(), l, nil)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := m.WriteSVG(&buf); err != nil {
			t.Fatal(err)
		}
		d := xml.NewDecoder(&buf)
		for {
			_, err := d.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("not well-formed XML for name %q, description %q: %v", name, desc, err)
			}
		}
	})
}
