package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/listing"
)

// apiWithRouter returns an API and a router it is mounted on.
func apiWithRouter(opts Options) (*API, *echo.Echo) {
	a := New(opts)
	e := echo.New()
	a.Register(e.Group(Prefix))
	return a, e
}

// largeListing is a listing of about size bytes in tools of about toolSize bytes whose
// descriptions are their own (salt), so that every request brings tools the caches have not
// seen. No two descriptions are near-duplicates: each has words of letters of its own (a word
// with digits would split into parts that others share) beside six common ones.
func largeListing(size, toolSize int, salt string) string {
	var b strings.Builder
	b.WriteString(`{"tools": [`)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		start := b.Len()
		fmt.Fprintf(&b, `{"name": "tool_%05d", "description": "Finds the record by its key; returns its fields, with`, i)
		for k := 0; b.Len()-start < toolSize; k++ {
			b.WriteString(" " + salt + "q" + word26(i*100000+k))
		}
		b.WriteString(`.", "inputSchema": {"type": "object", "properties": {"id": {"type": "string", "description": "The record's id."}}, "required": ["id"]}}`)
	}
	b.WriteString("]}")
	return b.String()
}

// word26 writes n in letters, a salt that stays one word.
func word26(n int) string {
	var w []byte
	for n++; n > 0; n /= 26 {
		w = append(w, byte('a'+n%26))
	}
	return string(w)
}

// TestCacheBytesBounded: distinct large check and cost requests, each bringing tools the API
// has not seen, leave the engines' caches within the API's byte budget (CacheBytes), which all
// its linters and counters share.
func TestCacheBytesBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: megabytes of requests")
	}
	const budget = 1 << 20
	a, e := apiWithRouter(Options{CacheBytes: budget})
	for i := range 5 {
		l := largeListing(512<<10, 400, word26(i))
		for _, req := range []struct{ path, tokenizer string }{{"/check", "approx"}, {"/cost", "o200k_base"}} {
			path := req.path
			rec := call(e, http.MethodPost, Prefix+path, body("listing", l, "tokenizer", quote(req.tokenizer)))
			if rec.Code != http.StatusOK {
				t.Fatalf("%s: %d %.300s", path, rec.Code, rec.Body)
			}
			if used := a.cache.Used(); used > budget {
				t.Fatalf("after %d requests of 512 KB the caches hold %d bytes, over the budget of %d", i+1, used, budget)
			}
		}
	}
	if used := a.cache.Used(); used < budget/2 {
		t.Errorf("the caches hold %d bytes: the requests did not fill the budget", used)
	}
}

// TestMergeAfterLongNameLinear: the listings a check merges, after a listing with a name of
// 15 MB, each cost memory of their own size (each is parsed from its own bytes, not from a copy
// of the body up to it): merging 64 costs little more than merging one. Their findings keep
// their line and column in the request body.
func TestMergeAfterLongNameLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a 15 MB request")
	}
	_, e := apiWithRouter(Options{})
	request := func(n int) string {
		var merge strings.Builder
		merge.WriteString("[")
		for i := range n {
			if i > 0 {
				merge.WriteString(",\n ")
			}
			fmt.Fprintf(&merge, `{"name": "other-%d", "listing": {"tools": [{"name": "get_book"}, {"name": "Get-Book"}]}}`, i)
		}
		merge.WriteString("]")
		return body("listing", `{"tools": [{"name": "get_book"}, {"name": "`+strings.Repeat("n", 15<<20)+`"}]}`, "merge", merge.String(), "tokenizer", `"approx"`)
	}
	check := func(req string) ([]byte, uint64) {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		rec := call(e, http.MethodPost, Prefix+"/check", req)
		runtime.ReadMemStats(&after)
		if rec.Code != http.StatusOK {
			t.Fatalf("%d %.300s", rec.Code, rec.Body)
		}
		return rec.Body.Bytes(), after.TotalAlloc - before.TotalAlloc
	}
	_, one := check(request(1))
	req := request(MaxMerge)
	answer, all := check(req)
	t.Logf("a %d-byte check request merging 1 listing allocated %d MiB, merging %d %d MiB", len(req), one>>20, MaxMerge, all>>20)
	if all > one+64<<20 {
		t.Errorf("merging %d listings allocated %d MiB more than merging one", MaxMerge, (all-one)>>20)
	}
	var r struct {
		Findings []struct {
			Rule, Source, Tool, Pointer string
			Line, Column                int
		}
	}
	if err := json.Unmarshal(answer, &r); err != nil {
		t.Fatal(err)
	}
	src := []byte(req)
	checked := 0
	for _, f := range r.Findings {
		if f.Rule != "name-collision-merged" || f.Source != "other-7" {
			continue
		}
		// The tool's name in the 8th merge entry, found in the body by its text.
		entry := strings.Index(req, `{"name": "other-7", "listing": `)
		at := entry + strings.Index(req[entry:], `{"name": "`+f.Tool+`"}`) + len(`{"name": `)
		line, col, _ := listing.Position(src, at)
		if f.Line != line || f.Column != col {
			t.Errorf("%s of other-7: line %d column %d, the value is at line %d column %d", f.Tool, f.Line, f.Column, line, col)
		}
		checked++
	}
	if checked != 2 {
		t.Errorf("%d collisions of other-7 found, want 2", checked)
	}
}

// BenchmarkDistinct3MB sends 50 distinct check (and cost) requests of 3 MB, in tools of 30 KB,
// to one API and reports how much the heap in use grew (after a GC) and what the caches account
// for: what a server keeps after them. It is a measurement, not a test: heap figures move with
// the runtime and include fragmentation.
func BenchmarkDistinct3MB(b *testing.B) {
	for _, tt := range []struct{ path, tokenizer string }{{"/check", "approx"}, {"/cost", "o200k_base"}} {
		b.Run(strings.TrimPrefix(tt.path, "/"), func(b *testing.B) {
			reqs := make([]string, 50)
			for i := range reqs {
				reqs[i] = body("listing", largeListing(3<<20, 30<<10, word26(i)), "tokenizer", quote(tt.tokenizer))
			}
			heap := func() uint64 {
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				return ms.HeapInuse
			}
			for b.Loop() {
				a, e := apiWithRouter(Options{})
				before := heap()
				for _, req := range reqs {
					if rec := call(e, http.MethodPost, Prefix+tt.path, req); rec.Code != http.StatusOK {
						b.Fatalf("%d %.300s", rec.Code, rec.Body)
					}
				}
				b.ReportMetric(float64(heap()-before)/(1<<20), "MiB-heap-growth")
				b.ReportMetric(float64(a.cache.Used())/(1<<20), "MiB-cached")
				runtime.KeepAlive(a)
			}
		})
	}
}
