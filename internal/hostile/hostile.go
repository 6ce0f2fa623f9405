// Package hostile is the corpus of hostile listings that every entry point of the workbench is
// tested and measured on: the CLI's commands, the JSON API, the pages and their live stream, and
// the fetch of a listing from a malicious MCP server (Server). Each case is a listing an
// attacker could put in front of the workbench, within its limits, named for what it attacks.
// Small cases are files in testdata/; large ones are generated here, never committed.
package hostile

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path"
	"sort"
	"strings"
)

// Case is one hostile listing.
type Case struct {
	Name    string
	Listing []byte
	// Large marks the cases of several megabytes, which the slowest entry points (a page in
	// a browser) may leave to the others.
	Large bool
	// Tools is how many tools the listing holds.
	Tools int
}

// OutputBound is the most output an entry point may give for c: linear in the listing, a few
// times its bytes (a report repeats a name or a text in several lines) and a few kilobytes per
// tool (a SARIF result, a JSON finding), whatever the listing holds.
func (c Case) OutputBound(timesBytes int) int {
	return timesBytes*len(c.Listing) + 8<<10*c.Tools + 1<<20
}

//go:embed testdata/*.json
var files embed.FS

// Corpus returns every case: the files in testdata/ and the generated ones, by name.
func Corpus() []Case {
	var out []Case
	ents, _ := files.ReadDir("testdata")
	for _, e := range ents {
		b, _ := files.ReadFile(path.Join("testdata", e.Name()))
		out = append(out, Case{Name: strings.TrimSuffix(e.Name(), ".json"), Listing: b, Tools: count(b)})
	}
	for name, gen := range generated {
		b := gen()
		out = append(out, Case{Name: name, Listing: b, Large: len(b) > 1<<20, Tools: count(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func count(listing []byte) int {
	var l struct {
		Tools []json.RawMessage `json:"tools"`
	}
	_ = json.Unmarshal(listing, &l)
	return len(l.Tools)
}

// generated makes the cases too large to commit.
var generated = map[string]func() []byte{
	// Near-identical descriptions: the near-duplicate rule once compared (and listed) every
	// pair, quadratic in memory and output.
	"neardup-3000-tools":  func() []byte { return nearDuplicates(3000) },
	"neardup-19999-tools": func() []byte { return nearDuplicates(19999) },
	// One description of 15 MB: rules that scan text must be linear in it.
	"description-15mb": func() []byte {
		return listingOf(tool("huge_description", strings.Repeat("Finds a book by its title and author. ", 15<<20/38), nil))
	},
	// One name of 15 MB: names are repeated in messages, merges and maps.
	"name-15mb": func() []byte {
		return listingOf(tool(strings.Repeat("n", 15<<20), "Finds a book by its title.", nil))
	},
	// 20,000 distinct tools, the most a listing may hold.
	"tools-20000": func() []byte {
		ts := make([]map[string]any, 20000)
		for i := range ts {
			ts[i] = tool(fmt.Sprintf("tool_%05d", i), fmt.Sprintf("Finds record %d of collection %d by its id.", i, i%97), nil)
		}
		return listingOf(ts...)
	},
	// 50,000 parameters in one tool.
	"params-50000": func() []byte {
		props := map[string]any{}
		for i := range 50000 {
			props[fmt.Sprintf("p%05d", i)] = map[string]any{"type": "string", "pattern": "^(a+)+$", "description": "A field."}
		}
		return listingOf(tool("many_params", "Takes many fields.", map[string]any{"type": "object", "properties": props}))
	},
}

func nearDuplicates(n int) []byte {
	ts := make([]map[string]any, n)
	for i := range ts {
		ts[i] = tool(fmt.Sprintf("get_book_%05d", i), fmt.Sprintf("Get a book from the library catalog by its id, title or author; variant %d.", i), nil)
	}
	return listingOf(ts...)
}

func tool(name, desc string, schema map[string]any) map[string]any {
	if schema == nil {
		schema = map[string]any{"type": "object", "properties": map[string]any{
			"id": map[string]any{"type": "string", "description": "The book's id."}}, "required": []any{"id"}}
	}
	return map[string]any{"name": name, "description": desc, "inputSchema": schema}
}

func listingOf(ts ...map[string]any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]any{"tools": ts})
	return b.Bytes()
}

// Server is a malicious MCP server over streamable HTTP: it answers initialize and then lists
// the tools of listing exactly as written, whatever they hold, in one tools/list page. It
// speaks just enough JSON-RPC for a client to fetch a listing.
func Server(listing []byte) http.Handler {
	var l struct {
		Tools json.RawMessage `json:"tools"`
	}
	_ = json.Unmarshal(listing, &l)
	tools := l.Tools
	if len(tools) == 0 {
		tools = json.RawMessage("[]")
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err := json.Unmarshal(body, &req); err != nil || len(req.ID) == 0 {
			w.WriteHeader(http.StatusAccepted) // a notification
			return
		}
		var result string
		switch req.Method {
		case "initialize":
			v, _ := json.Marshal(req.Params.ProtocolVersion)
			result = `{"protocolVersion":` + string(v) + `,"capabilities":{"tools":{}},"serverInfo":{"name":"hostile","version":"6.6.6"}}`
		case "tools/list":
			result = `{"tools":` + string(tools) + `}`
		default:
			result = `{}`
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
	})
}
