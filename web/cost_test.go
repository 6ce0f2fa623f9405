package web

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
)

func TestCostChoiceResolve(t *testing.T) {
	def := costChoice{Tok: "o200k_base", Render: "compact", Window: winSize{N: 128000, Set: true}}
	cases := []struct {
		name, signals string
		want          costChoice
		bad           bool
	}{
		{"none sent: the default", `{}`, costChoice{}, false},
		{"the default sent: the default", `{"costtok":"o200k_base","costrender":"compact","costwin":128000,"costmodel":"","costchoice":""}`, costChoice{}, false},
		{"another tokenizer", `{"costtok":"cl100k_base"}`, costChoice{Tok: "cl100k_base", Render: "compact", Window: def.Window}, false},
		{"a window typed", `{"costwin":"50000"}`, costChoice{Tok: "o200k_base", Render: "compact", Window: winSize{N: 50000, Set: true}}, false},
		{"the window cleared: none", `{"costwin":""}`, costChoice{Tok: "o200k_base", Render: "compact", Window: winSize{Set: true}}, false},
		{"a model of the estimate", `{"costrender":"openai","costmodel":"gpt-4"}`, costChoice{Tok: "o200k_base", Render: "openai", Window: def.Window, Model: "gpt-4"}, false},
		{"Anthropic's tool choice", `{"costrender":"anthropic","costchoice":"any"}`, costChoice{Tok: "o200k_base", Render: "anthropic", Window: def.Window, ToolChoice: "any"}, false},
		{"a tokenizer file", `{"costtok":"/etc/passwd"}`, costChoice{}, true},
		{"an unknown rendering", `{"costrender":"xml"}`, costChoice{}, true},
		{"a model of another rendering", `{"costrender":"openai","costmodel":"claude-3-opus"}`, costChoice{}, true},
		{"a model for a rendering without one", `{"costmodel":"gpt-4"}`, costChoice{}, true},
		{"a tool choice without anthropic", `{"costchoice":"any"}`, costChoice{}, true},
		{"a negative window", `{"costwin":-1}`, costChoice{}, true},
		{"a window too large", `{"costwin":100000000}`, costChoice{}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var sg signals
			if err := json.Unmarshal([]byte(c.signals), &sg); err != nil {
				t.Fatal(err)
			}
			got, err := sg.costChoice.resolve(def, nil)
			if (err != nil) != c.bad || got != c.want {
				t.Errorf("resolve(%s) = %+v, %v; want %+v, error %v", c.signals, got, err, c.want, c.bad)
			}
		})
	}
	var sg signals
	if err := json.Unmarshal([]byte(`{"costwin":1.5}`), &sg); err == nil {
		t.Error("a fractional window was read")
	}
}

// BenchmarkEditCostChoice is BenchmarkEditRecomputeRender for a page that chose its own
// counting (cl100k_base, harmony): the edit's answer carries that page's Cost region, counted
// with the Cost tab's counters, in place of the shared one.
func BenchmarkEditCostChoice(b *testing.B) {
	src := githubListing(b)
	s := newServer(b)
	l, err := listing.Parse(src, listing.Options{Name: "github"})
	if err != nil {
		b.Fatal(err)
	}
	ws, err := s.store.Create(b.Context(), "github", l, benchTasks(l, 200), Author{Name: "bench"}, "")
	if err != nil {
		b.Fatal(err)
	}
	getPage(b, s, "/w/"+ws.ID)
	benchEdits(b, s, ws.ID, l, `,"costtok":"cl100k_base","costrender":"harmony","costwin":128000`, func(body string) error {
		if !strings.Contains(body, "harmony") {
			return fmt.Errorf("no Cost region counted with harmony: %.300s", body)
		}
		return nil
	})
}

// TestCostViewAddsUp: the Cost tab's figures add up to its total, the rendering counted as one
// text: the parts (tools' parts and the frame), and the bars with the overhead.
func TestCostViewAddsUp(t *testing.T) {
	l, err := listing.Parse(testutil.ReadShared(t, "listings", "real", "github-mcp-server.json"), listing.Options{Name: "github"})
	if err != nil {
		t.Fatal(err)
	}
	for _, render := range []string{"compact", "harmony"} {
		tok, err := cost.NewTokenizer("o200k_base")
		if err != nil {
			t.Fatal(err)
		}
		c, err := cost.NewCounter(tok, render, cost.Options{})
		if err != nil {
			t.Fatal(err)
		}
		v := costView(c.Listing(l), cost.Measure{}, 0)
		parts, bars := 0, v.OverheadTokens+v.MoreTokens
		for _, p := range v.Parts {
			parts += p.Tokens
		}
		for _, b := range v.Bars {
			bars += b.Tokens
		}
		if parts != v.TotalTokens || bars != v.TotalTokens || !v.OneText || v.Boundary >= 0 {
			t.Errorf("%s: parts add up to %d, bars and frame to %d, total %d (one text %v, boundary %d)", render, parts, bars, v.TotalTokens, v.OneText, v.Boundary)
		}
		if render == "compact" && v.TotalTokens != 35274 {
			t.Errorf("compact total %d, the text counts 35274", v.TotalTokens)
		}
	}
}
