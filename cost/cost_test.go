package cost

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
)

var dumpTexts = flag.String("dump", "", "write every text the renderings tokenize to this JSON file, for tools/tokref/gen.mjs")

// corpus is every listing the reference counts cover: the real listings and the reference
// checker's tool fixtures.
func corpus(t testing.TB) map[string]*listing.Listing {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(testutil.Shared(t, "listings", "real"), "*.json"))
	fx, _ := filepath.Glob(filepath.Join(testutil.Shared(t, "reference", "fixtures"), "*-tools.json"))
	files = append(files, fx...)
	if len(files) == 0 {
		t.Fatal("no listings found in shared/listings/real or shared/reference/fixtures")
	}
	out := map[string]*listing.Listing{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		l, err := listing.Parse(src, listing.Options{Name: filepath.Base(f)})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = l
	}
	return out
}

func textKey(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

// recorder counts with a real tokenizer and remembers every text it was asked about.
type recorder struct {
	Tokenizer
	mu    sync.Mutex
	texts map[string]bool
}

func (r *recorder) Count(s string) int {
	r.mu.Lock()
	r.texts[s] = true
	r.mu.Unlock()
	return r.Tokenizer.Count(s)
}

func (r *recorder) Cut(s string, i int) bool { return r.Tokenizer.(Cutter).Cut(s, i) }

// reference answers with the counts js-tiktoken gave (testdata/reference_tokens.json).
type reference struct {
	name    string
	counts  map[string]int
	mu      sync.Mutex
	missing []string
}

func (r *reference) Name() string { return r.name }
func (r *reference) Count(s string) int {
	n, ok := r.counts[textKey(s)]
	if !ok {
		r.mu.Lock()
		r.missing = append(r.missing, s)
		r.mu.Unlock()
	}
	return n
}

// Cut is tiktoken's, so that the reference report is the same attribution.
func (r *reference) Cut(s string, i int) bool { return utf8.RuneStart(s[i]) && exactBoundary(s, i) }

type referenceFile struct {
	Generator string                    `json:"generator"`
	Counts    map[string]map[string]int `json:"counts"`
}

// TestTokensMatchReference counts every listing of the corpus in every rendering with both
// encodings, and checks every text tokenized against js-tiktoken's count of the same text, and
// the total of a rendering that is one text against js-tiktoken's count of that text, uncut.
// Regenerate the reference with: node tools/tokref/gen.mjs
func TestTokensMatchReference(t *testing.T) {
	listings := corpus(t)
	names := make([]string, 0, len(listings))
	for n := range listings {
		names = append(names, n)
	}
	sort.Strings(names)
	if *dumpTexts != "" {
		dump(t, listings, names)
		return
	}
	b, err := os.ReadFile(filepath.Join("testdata", "reference_tokens.json"))
	if err != nil {
		t.Fatalf("reading the reference counts (generate them with node tools/tokref/gen.mjs): %v", err)
	}
	var ref referenceFile
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatalf("testdata/reference_tokens.json: %v", err)
	}
	for _, enc := range Encodings {
		tok, err := NewTokenizer(enc)
		if err != nil {
			t.Fatal(err)
		}
		counts := ref.Counts[enc]
		if len(counts) == 0 {
			t.Fatalf("reference has no counts for %s", enc)
		}
		for _, render := range RenderingNames() {
			for _, name := range names {
				t.Run(enc+"/"+render+"/"+name, func(t *testing.T) {
					ours, err := NewCounter(tok, render, Options{})
					if err != nil {
						t.Fatal(err)
					}
					refTok := &reference{name: enc, counts: counts}
					theirs, err := NewCounter(refTok, render, Options{})
					if err != nil {
						t.Fatal(err)
					}
					got, want := ours.Listing(listings[name]), theirs.Listing(listings[name])
					if len(refTok.missing) > 0 {
						t.Fatalf("%d texts have no reference count (regenerate with node tools/tokref/gen.mjs); first: %.80q", len(refTok.missing), refTok.missing[0])
					}
					if got.Total != want.Total {
						t.Errorf("total %+v, js-tiktoken %+v", got.Total, want.Total)
					}
					if text, outside, ok := wholeText(ours, listings[name]); ok {
						n, found := counts[textKey(text)]
						if !found {
							t.Fatalf("the whole text has no reference count (regenerate with node tools/tokref/gen.mjs)")
						}
						if got.Total.Tokens != n+outside {
							t.Errorf("total %d tokens, js-tiktoken counts the whole text %d (+%d outside it)", got.Total.Tokens, n, outside)
						}
					}
					if !reflect.DeepEqual(got, want) {
						for i := range got.Tools {
							if !reflect.DeepEqual(got.Tools[i], want.Tools[i]) {
								t.Errorf("tool %d: got %+v, js-tiktoken %+v", i, got.Tools[i], want.Tools[i])
								break
							}
						}
						t.Errorf("report differs from the one counted with js-tiktoken's counts")
					}
					if got.Total.Tokens <= 0 || got.Total.Bytes <= 0 {
						t.Errorf("empty total %+v", got.Total)
					}
				})
			}
		}
	}
}

func dump(t *testing.T, listings map[string]*listing.Listing, names []string) {
	tok, err := NewTokenizer("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{Tokenizer: tok, texts: map[string]bool{}}
	for _, enc := range Encodings {
		for _, render := range RenderingNames() {
			// The openai constants depend on the encoding's name, not the texts, so one
			// recording tokenizer stands in for both encodings.
			c, err := NewCounter(named{rec, enc}, render, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range names {
				c.Listing(listings[n])
				// The whole text, counted uncut by js-tiktoken for the total's check.
				if text, _, ok := wholeText(c, listings[n]); ok {
					rec.texts[text] = true
				}
			}
		}
	}
	texts := make([]string, 0, len(rec.texts))
	for s := range rec.texts {
		texts = append(texts, s)
	}
	sort.Strings(texts)
	b, err := json.Marshal(map[string]any{"texts": texts})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(*dumpTexts, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %d texts to %s", len(texts), *dumpTexts)
}

type named struct {
	Tokenizer
	name string
}

func (n named) Name() string             { return n.name }
func (n named) Cut(s string, i int) bool { return n.Tokenizer.(Cutter).Cut(s, i) }

var infoLine = regexp.MustCompile(`(?m)^INFO (\d+) tools, (\d+) bytes as compact JSON`)

// TestCompactMatchesReferenceInfo checks the compact rendering's bytes against the INFO line the
// reference checker printed for each fixture.
func TestCompactMatchesReferenceInfo(t *testing.T) {
	recorded, _ := filepath.Glob(filepath.Join(testutil.Shared(t, "reference", "recorded"), "*.txt"))
	if len(recorded) == 0 {
		t.Skip("no recorded reference output")
	}
	tok, err := NewTokenizer("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCounter(tok, "compact", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recorded {
		name := strings.TrimSuffix(filepath.Base(rec), ".txt")
		t.Run(name, func(t *testing.T) {
			out, err := os.ReadFile(rec)
			if err != nil {
				t.Fatal(err)
			}
			m := infoLine.FindSubmatch(out)
			if m == nil {
				t.Fatalf("%s has no INFO line", rec)
			}
			wantTools, _ := strconv.Atoi(string(m[1]))
			wantBytes, _ := strconv.Atoi(string(m[2]))
			src, err := os.ReadFile(filepath.Join(testutil.Shared(t, "reference", "fixtures"), name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			l, err := listing.Parse(src, listing.Options{Name: name})
			if err != nil {
				t.Fatal(err)
			}
			rep := c.Listing(l)
			if len(rep.Tools) != wantTools || rep.Total.Bytes != wantBytes {
				t.Errorf("%d tools, %d bytes; the reference printed %d tools, %d bytes", len(rep.Tools), rep.Total.Bytes, wantTools, wantBytes)
			}
			if whole := len(listing.PythonJSON(listing.NewArray(l.Tools...), true)); whole != rep.Total.Bytes {
				t.Errorf("per-tool bytes add up to %d, the whole array is %d", rep.Total.Bytes, whole)
			}
		})
	}
}

// TestWireBytesAreTheResult checks that the wire rendering's tools and frame add up to exactly
// the encoded tools/list result, for every shape of input.
func TestWireBytesAreTheResult(t *testing.T) {
	tok, err := NewTokenizer("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCounter(tok, "wire", Options{})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"bare array":   `[{"name":"a","description":"x"},{"name":"b"}]`,
		"result":       `{"tools":[{"name":"a"}],"nextCursor":"abc"}`,
		"meta first":   `{"_meta":{"k":[1,2]},"tools":[{"name":"a"},{"name":"b","inputSchema":{"type":"object"}}],"z":null}`,
		"response":     `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"é \u2028","description":"tab\t"}]}}`,
		"no tools":     `{"tools":[]}`,
		"repeated key": `{"tools":[],"tools":[{"name":"a"}]}`,
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			l, err := listing.Parse([]byte(src), listing.Options{Name: name})
			if err != nil {
				t.Fatal(err)
			}
			rep := c.Listing(l)
			want := len(listing.Marshal(l.Result(), ""))
			if rep.Total.Bytes != want {
				t.Errorf("wire bytes %d, result encodes to %d bytes", rep.Total.Bytes, want)
			}
			f := wireFrame(nil, l)
			var whole strings.Builder
			whole.WriteString(f.texts[0])
			for i, tool := range l.Tools {
				if i > 0 {
					whole.WriteString(",")
				}
				whole.Write(listing.Marshal(tool, ""))
			}
			whole.WriteString(f.texts[len(f.texts)-1])
			if got := whole.String(); got != string(listing.Marshal(l.Result(), "")) {
				t.Errorf("frame and tools give\n%s\nresult is\n%s", got, listing.Marshal(l.Result(), ""))
			}
		})
	}
}
