package challenge

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
)

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseDefaults(t *testing.T) {
	f, err := Parse(readFile(t, "testdata/small-challenge.json"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Budget.Tokenizer != DefaultTokenizer || f.Budget.Rendering != DefaultRendering || f.Scorer.Kind != "ranker" {
		t.Errorf("budget %+v, scorer %+v: want the defaults filled", f.Budget, f.Scorer)
	}
	if f.Penalties.Points != DefaultPenaltyPoints || !f.Penalties.Errors || !slices.Equal(f.Penalties.Rules, DefaultPenaltyRules) {
		t.Errorf("penalties %+v: want the defaults", f.Penalties)
	}
	if len(f.Live) != 4 || len(f.Final) != 2 || f.Live[3].Expect != nil || len(f.Final[1].Reject) != 1 {
		t.Errorf("splits read as %d live, %d final: %+v", len(f.Live), len(f.Final), f.Final)
	}
}

// TestParseRoundTrip: what Encode writes, Parse reads back to the same file, and penalties
// given as none stay none.
func TestParseRoundTrip(t *testing.T) {
	src := strings.Replace(string(readFile(t, "testdata/small-challenge.json")), `"budget": {"tokens": 400},`,
		`"budget": {"tokens": 400, "tokenizer": "cl100k_base", "rendering": "wire"}, "penalties": {"points": 0, "errors": false, "rules": []},`, 1)
	f, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Parse(b)
	if err != nil {
		t.Fatalf("Parse(Encode(f)): %v\n%s", err, b)
	}
	b2, _ := Encode(g)
	if !bytes.Equal(b, b2) {
		t.Errorf("the file changed on a round trip:\n%s\n%s", b, b2)
	}
	if g.Penalties.Points != 0 || g.Penalties.Errors || len(g.Penalties.Rules) != 0 || g.Budget.Rendering != "wire" {
		t.Errorf("penalties %+v, budget %+v: want none and wire", g.Penalties, g.Budget)
	}
}

func TestParseRefuses(t *testing.T) {
	good := string(readFile(t, "testdata/small-challenge.json"))
	with := func(old, new string) string {
		if !strings.Contains(good, old) {
			t.Fatalf("%q is not in the file", old)
		}
		return strings.Replace(good, old, new, 1)
	}
	for _, tc := range []struct{ name, src, want string }{
		{"not JSON", "{", "broken JSON"},
		{"a list", "[]", "the document: a JSON array at line 1, column 2 where a JSON object belongs"},
		{"unknown field", with(`"title"`, `"budjet": 3, "title"`), `unknown field "budjet"`},
		{"newer version", with(`"version": 1`, `"version": 2`), "reads version 1"},
		{"no tools", with(`"tools": ["weather_get", "news_search", "calendar_add"]`, `"tools": []`), "names no tools"},
		{"tool twice", with(`"news_search", "calendar_add"]`, `"news_search", "news_search"]`), `names "news_search" twice`},
		{"no budget", with(`"budget": {"tokens": 400},`, ``), "no token budget"},
		{"budget too large", with(`"tokens": 400`, `"tokens": 99999999`), "give 1 to 1048576"},
		{"tokenizer", with(`"tokens": 400`, `"tokens": 400, "tokenizer": "gpt2"`), "use one of o200k_base, cl100k_base"},
		{"rendering", with(`"tokens": 400`, `"tokens": 400, "rendering": "xml"`), "use one of wire, compact"},
		{"scorer", with(`"title"`, `"scorer": {"kind": "endpoint"}, "title"`), "only the word-overlap ranker scores a challenge in this version"},
		{"rule", with(`"title"`, `"penalties": {"rules": ["shouting"]}, "title"`), "`workbench rules` lists"},
		{"points", with(`"title"`, `"penalties": {"points": -1}, "title"`), "give 0 to 100"},
		{"window", with(`"title"`, `"window": {"start": "2026-03-01T10:00:00Z", "end": "2026-03-01T09:00:00Z"}, "title"`), "ends (2026-03-01 09:00 UTC) before it starts"},
		{"unknown tool", with(`"expect": "calendar_add"}`, `"expect": "calendar_create"}`), `task 3 of the live split names "calendar_create", which is not a starting tool`},
		{"unknown rejected tool", with(`"reject": ["news_search"]`, `"reject": ["news_find"]`), `task 2 of the final split names "news_find"`},
		{"no final split", with(`"final": [`, `"later": [`), `unknown field "later"`},
		{"empty final split", good[:strings.Index(good, `"final"`)] + `"final": []}`, "the final split has no tasks"},
		{"bad task", with(`{"task": "tell me a joke", "expect": null}`, `{"task": 3, "expect": null}`), "the live split: every task needs"},
		{"empty task", with(`"tell me a joke"`, `"  "`), "task 4 of the live split has no text"},
		{"task in both splits", with(`"what is the wind like in Bergen"`, `"Will it rain in  Oslo tomorrow"`), "task 1 of the final split is task 1 of the live split"},
		{"two values", good + "{}", "more than one JSON value"},
		{"title with a control", with(`"Small"`, `"Sm\u0007all"`), "control character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.src))
			var inv *Invalid
			if !errors.As(err, &inv) {
				t.Fatalf("err = %v; want an *Invalid", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %q; want it to say %q", err, tc.want)
			}
		})
	}
}

func TestParseTooLarge(t *testing.T) {
	_, err := Parse(make([]byte, 4<<20+1))
	if err == nil || !strings.Contains(err.Error(), "the limit is") {
		t.Errorf("err = %v; want the size limit", err)
	}
}

// FuzzParse: Parse never panics, and a file it reads writes back to one it reads the same.
func FuzzParse(f *testing.F) {
	f.Add(readFile(f, "testdata/small-challenge.json"))
	f.Add([]byte(`{"tools":["a"],"budget":{"tokens":1},"live":[{"task":"x","expect":"a"}],"final":[{"task":"y","expect":null}]}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		c, err := Parse(src)
		if err != nil {
			return
		}
		b, err := Encode(c)
		if err != nil {
			t.Fatalf("Encode: %v", err)
		}
		c2, err := Parse(b)
		if err != nil {
			t.Fatalf("Parse(Encode(Parse(src))): %v\n%s", err, b)
		}
		if b2, _ := Encode(c2); !bytes.Equal(b, b2) {
			t.Fatalf("not stable:\n%s\n%s", b, b2)
		}
	})
}
