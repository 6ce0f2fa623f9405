package cost

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
)

var chatRenderings = []string{"qwen3", "llama3.1", "mistral"}

// chatText joins a rendering's frame and tools as the separated contract says:
// pre + tool_0 + sep + ... + tool_{n-1} + post; with no tools, the frame's texts.
func chatText(t testing.TB, name string, l *listing.Listing) string {
	t.Helper()
	r, err := findRenderer(name)
	if err != nil {
		t.Fatal(err)
	}
	f := r.frame(&options{}, l)
	if len(l.Tools) == 0 {
		return strings.Join(f.texts, "")
	}
	if len(f.texts) != max(2, len(l.Tools)+1) || f.fixed != 0 {
		t.Fatalf("%s: frame of %d texts (fixed %d) for %d tools, not separated(pre, post, sep, n)", name, len(f.texts), f.fixed, len(l.Tools))
	}
	var b strings.Builder
	b.WriteString(f.texts[0])
	for i, tool := range l.Tools {
		if i > 0 {
			b.WriteString(f.texts[1])
		}
		texts := r.tool(&options{}, tool).texts
		if len(texts) != 1 {
			t.Fatalf("%s: tool %d is %d texts, not one", name, i, len(texts))
		}
		b.WriteString(texts[0])
	}
	b.WriteString(f.texts[len(f.texts)-1])
	return b.String()
}

type chatReference struct {
	Generator string `json:"generator"`
	Templates map[string]struct {
		Source string `json:"source"`
		SHA256 string `json:"sha256"`
	} `json:"templates"`
	Texts map[string]struct {
		SHA256   string `json:"sha256"`
		Bytes    int    `json:"bytes"`
		JSSHA256 string `json:"js_sha256"`
		JSBytes  int    `json:"js_bytes"`
	} `json:"texts"`
}

// chatListings are the listings tools/tokref/templates.mjs renders: the cost corpus, our empty, small
// and edge listings, and each tool of the edge listing alone ("chat-edge-tools.json#i").
func chatListings(t *testing.T) map[string]*listing.Listing {
	out := corpus(t)
	for _, f := range []string{"chat-empty-tools.json", "chat-small-tools.json", "chat-edge-tools.json"} {
		src, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		out[f] = parse(t, string(src))
	}
	for i, tool := range out["chat-edge-tools.json"].Tools {
		out["chat-edge-tools.json#"+strconv.Itoa(i)] = &listing.Listing{Tools: []*listing.Value{tool}}
	}
	return out
}

// TestChatTemplatesMatchJinja renders every listing of the corpus and our own in each
// chat-template rendering and compares the text's SHA-256 and length with the model's own chat
// template rendered by jinja2 as transformers sets it up, and records where @huggingface/jinja
// writes something else: only for the JavaScript number and key-order cases of the edge
// listing. Regenerate with: node tools/tokref/templates.mjs
func TestChatTemplatesMatchJinja(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "chat_templates.json"))
	if err != nil {
		t.Fatalf("reading the reference renderings (generate them with node tools/tokref/templates.mjs): %v", err)
	}
	var ref chatReference
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatalf("testdata/chat_templates.json: %v", err)
	}
	listings := chatListings(t)
	names := make([]string, 0, len(listings))
	for n := range listings {
		names = append(names, n)
	}
	sort.Strings(names)
	// The edge tools whose text @huggingface/jinja writes otherwise than Python: 2.0, 1e20 and
	// 1e-5, -0.0, an integer past 2^53, integer-like keys after others, 1e400.
	wantJS := []string{"chat-edge-tools.json", "chat-edge-tools.json#6", "chat-edge-tools.json#7", "chat-edge-tools.json#9",
		"chat-edge-tools.json#10", "chat-edge-tools.json#11", "chat-edge-tools.json#14"}
	for _, render := range chatRenderings {
		if ref.Templates[render].SHA256 == "" {
			t.Errorf("%s: no template recorded", render)
		}
		var gotJS []string
		for _, name := range names {
			want, ok := ref.Texts[render+"/"+name]
			if !ok {
				t.Errorf("%s/%s: no reference rendering (regenerate with node tools/tokref/templates.mjs)", render, name)
				continue
			}
			text := chatText(t, render, listings[name])
			h := sha256.Sum256([]byte(text))
			if got := hex.EncodeToString(h[:]); got != want.SHA256 || len(text) != want.Bytes {
				t.Errorf("%s/%s: %d bytes, sha256 %.16s; the template writes %d bytes, %.16s", render, name, len(text), got, want.Bytes, want.SHA256)
			}
			if want.JSSHA256 != "" {
				gotJS = append(gotJS, name)
			}
		}
		sort.Strings(wantJS)
		if !slices.Equal(gotJS, wantJS) {
			t.Errorf("%s: @huggingface/jinja differs from jinja2 on %q, want exactly %q", render, gotJS, wantJS)
		}
	}
	if n := len(ref.Texts); n != len(chatRenderings)*len(names) {
		t.Errorf("the reference has %d texts, the test renders %d", n, len(chatRenderings)*len(names))
	}
}

// TestChatRenderingSmall keeps our small listing's rendering in each chat template as a golden
// text, to read; its hash is also among the reference's. Regenerate with -update.
func TestChatRenderingSmall(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "chat-small-tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	l := parse(t, string(src))
	for _, render := range chatRenderings {
		t.Run(render, func(t *testing.T) {
			testutil.Golden(t, filepath.Join("testdata", "golden", "chat-small."+render+".txt"), []byte(chatText(t, render, l)))
		})
	}
}

// TestChatEmptyListing: with no tools each template still writes its conversation (tools = []).
func TestChatEmptyListing(t *testing.T) {
	l := &listing.Listing{}
	want := map[string]string{
		"qwen3":    "<|im_start|>user\n<|im_end|>\n",
		"llama3.1": llama31Pre + "<|eot_id|>",
		"mistral":  "<s>[AVAILABLE_TOOLS][[/AVAILABLE_TOOLS][INST][/INST]",
	}
	for _, render := range chatRenderings {
		if got := chatText(t, render, l); got != want[render] {
			t.Errorf("%s: %q, want %q", render, got, want[render])
		}
		rep := counter(t, "o200k_base", render, Options{}).Listing(l)
		if rep.Total.Bytes != len(want[render]) {
			t.Errorf("%s: %d bytes reported, the text is %d", render, rep.Total.Bytes, len(want[render]))
		}
	}
}

// TestChatParts: each part of a tool is text that the tool's rendering contains, the parts and
// syntax add up to the tool, and the report's bytes are the whole text's.
func TestChatParts(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "chat-edge-tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	l := parse(t, string(src))
	for _, render := range chatRenderings {
		r, err := findRenderer(render)
		if err != nil {
			t.Fatal(err)
		}
		for i, tool := range l.Tools {
			rt := r.tool(&options{}, tool)
			names := map[string]bool{}
			for _, p := range rt.parts {
				names[p.name] = true
				for _, s := range p.texts {
					if !strings.Contains(rt.texts[0], s) {
						t.Errorf("%s tool %d: part %s text %.60q is not in the tool's text", render, i, p.name, s)
					}
				}
			}
			if want := tool.Get("description") != nil; names[PartDescription] != want || !names[PartName] || names[PartSchema] != (tool.Get("inputSchema") != nil) {
				t.Errorf("%s tool %d: parts %v", render, i, names)
			}
		}
		rep := counter(t, "o200k_base", render, Options{}).Listing(l)
		if text := chatText(t, render, l); rep.Total.Bytes != len(text) {
			t.Errorf("%s: %d bytes reported, the text is %d", render, rep.Total.Bytes, len(text))
		}
		for _, tc := range rep.Tools {
			var sum Measure
			for _, p := range tc.Parts {
				sum.Tokens += p.Tokens
				sum.Bytes += p.Bytes
			}
			if sum != tc.Measure {
				t.Errorf("%s %s: parts add up to %+v, the tool is %+v", render, tc.Name, sum, tc.Measure)
			}
		}
	}
}

// FuzzChatRenderings: every chat rendering's report has the whole text's bytes, and
// llama3.1's indented JSON reads back as the same value as qwen3's one-line JSON.
func FuzzChatRenderings(f *testing.F) {
	// Small seeds: the fuzzer minimises every new input, and a large one takes minutes.
	f.Add(`[{"name": "a", "inputSchema": {"type": "object", "properties": {"x": {"enum": [[], {}, [1.5e300, -0.0, 2.0]]}}}}]`)
	f.Add(`{"tools": [{"name": "q\"", "description": "a\\b\n\u2028 é 🚀"}, {"name": "n", "description": 4, "inputSchema": null}]}`)
	f.Add(`[{"name": "k", "inputSchema": {"properties": {"b": {}, "10": {"maximum": 12345678901234567890}, "b": []}}}]`)
	f.Add(`[]`)
	counters := map[string]*Counter{}
	for _, r := range chatRenderings {
		counters[r] = counter(f, "o200k_base", r, Options{})
	}
	f.Fuzz(func(t *testing.T, src string) {
		l, err := listing.Parse([]byte(src), listing.Options{Name: "fuzz"})
		if err != nil {
			return
		}
		for _, r := range chatRenderings {
			if rep := counters[r].Listing(l); rep.Total.Bytes != len(chatText(t, r, l)) {
				t.Fatalf("%s: %d bytes reported, the text is %d", r, rep.Total.Bytes, len(chatText(t, r, l)))
			}
		}
		for _, tool := range l.Tools {
			spec := functionSpec(tool)
			back, err := listing.ParseJSON([]byte(pyIndentString(spec, 0)))
			if err != nil {
				t.Fatalf("indented JSON does not parse: %v\n%s", err, pyIndentString(spec, 0))
			}
			if got, want := pyDefaultString(back), pyDefaultString(spec); got != want {
				t.Fatalf("indented JSON reads back as\n%s\nnot\n%s", got, want)
			}
		}
	})
}
