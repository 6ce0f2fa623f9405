package export

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
)

// roundTripCases are the listings whose generated servers the round trip builds and asks.
func roundTripCases(t *testing.T) map[string]string {
	cases := map[string]string{"awkward": filepath.Join("testdata", "awkward-tools.json")}
	shared, ok := testutil.SharedPath(t)
	if !ok {
		t.Log("shared/ not found next to the module: round trip runs on testdata only")
		return cases
	}
	for _, f := range []string{"clear", "confusing", "draft"} {
		cases["seed-"+f] = filepath.Join(shared, "reference", "fixtures", f+"-tools.json")
	}
	for _, f := range []string{"kubernetes-mcp-server", "kubernetes-mcp-server-extra-toolsets", "github-mcp-server", "gitlab-mcp-server", "mongodb-mcp-server"} {
		cases["real-"+f] = filepath.Join(shared, "listings", "real", f+".json")
	}
	return cases
}

// TestGoRoundTrip builds the generated code (with main) against the SDK version in our go.mod,
// runs each server on stdio, and checks that its tools/list answer is the exported listing,
// changed in exactly the ways the export's warnings document, and that a handler stub answers
// with a tool error.
func TestGoRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the Go round trip in -short mode: it builds and runs MCP servers")
	}
	goTool := testutil.GoCommand(t)
	root := testutil.ModuleRoot(t)
	version := sdkVersion(t, goTool, root)
	cases := roundTripCases(t)

	// One temporary module with one main package per listing, built by one go build.
	mod := t.TempDir()
	gomod := fmt.Sprintf("module roundtrip\n\ngo 1.25\n\nrequire %s %s\n", SDKModule, version)
	testutil.WriteFile(t, filepath.Join(mod, "go.mod"), []byte(gomod))
	// Our go.sum already holds the sums of the SDK and its dependencies.
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, filepath.Join(mod, "go.sum"), sum)

	type prepared struct {
		exported *listing.Listing
		warnings []Warning
	}
	prep := map[string]prepared{}
	names := make([]string, 0, len(cases))
	for name, path := range cases {
		l := readListing(t, path)
		exported, err := listing.Parse(JSON(l, JSONOptions{}), listing.Options{Name: name + " (exported)"})
		if err != nil {
			t.Fatalf("%s: the exported JSON does not parse: %v", name, err)
		}
		code, warns, err := Go(l, GoOptions{Main: true, Source: filepath.Base(path)})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		testutil.WriteFile(t, filepath.Join(mod, "cmd", name, "main.go"), code)
		prep[name] = prepared{exported, warns}
		names = append(names, name)
	}
	slices.Sort(names)

	bin := filepath.Join(mod, "bin")
	build := exec.Command(goTool, "build", "-o", bin+string(filepath.Separator), "./cmd/...")
	build.Dir = mod
	// -mod=mod lets go fill in the SDK's own requirements from the module cache (go.sum has
	// their sums); the caller's GOFLAGS, GOPROXY and GOMODCACHE carry over.
	build.Env = append(os.Environ(), "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod"), "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of the generated code failed: %v\n%s", err, out)
	}

	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			p := prep[name]
			want := applyDifferences(t, p.exported, p.warnings)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			got, call := listTools(ctx, t, filepath.Join(bin, name))
			if len(got) != len(want) {
				t.Fatalf("server lists %d tools, want %d", len(got), len(want))
			}
			for i := range want {
				if !listing.Equal(got[i], want[i]) {
					t.Fatalf("tool %d differs beyond the documented differences:\n got: %s\nwant: %s",
						i, listing.Marshal(got[i], ""), listing.Marshal(want[i], ""))
				}
			}
			if !call.IsError || len(call.Content) != 1 {
				t.Fatalf("the stub's answer is not one tool error: %+v", call)
			}
			text, ok := call.Content[0].(*mcp.TextContent)
			if !ok || !strings.Contains(text.Text, "not implemented") || !strings.Contains(text.Text, want[0].Get("name").Str) {
				t.Fatalf("the stub's answer does not say the tool is not implemented: %+v", call.Content[0])
			}
		})
	}
}

// applyDifferences turns the exported listing into what the SDK should answer, using only the
// differences the export's warnings name. Each kind's effect is written out here, independently
// of the generator, from the SDK's source: a warning the generator forgot, or one that does not
// match what the SDK does, makes the comparison fail.
func applyDifferences(t *testing.T, l *listing.Listing, warns []Warning) []*listing.Value {
	t.Helper()
	var reorder []string
	sortTools := false
	for _, w := range warns {
		var err error
		switch w.Kind {
		case DiffOrder:
			sortTools = true
		case DiffHintDefault:
			l, err = l.Apply(listing.Op{Kind: listing.OpSet, Path: w.Pointer, Value: listing.NewBool(false)})
		case DiffDropped, DiffEmptyOmitted:
			l, err = l.Apply(listing.Op{Kind: listing.OpRemove, Path: w.Pointer})
		case DiffMemberOrder:
			reorder = append(reorder, w.Pointer)
		case DiffNone, DiffEnvelope:
			// Only the tools are compared: the result's other members are the SDK's.
		default:
			t.Fatalf("warning of an unknown kind %q: %v", w.Kind, w)
		}
		if err != nil {
			t.Fatalf("warning %v: %v", w, err)
		}
	}
	tools := make([]*listing.Value, len(l.Tools))
	for i, tool := range l.Tools {
		tools[i] = listing.Clone(tool)
	}
	root := listing.NewObject(listing.Member{Key: "tools", Value: listing.NewArray(tools...), KeyPos: -1})
	for _, ptr := range reorder {
		v := listing.Resolve(root, ptr)
		if v == nil || v.Kind != listing.Object {
			t.Fatalf("member-order warning at %s, which is not an object", ptr)
		}
		toks, _ := listing.SplitPointer(ptr)
		var order []string
		switch {
		case len(toks) == 2: // a tool: mcp.Tool's fields
			order = []string{"_meta", "annotations", "description", "inputSchema", "name", "outputSchema", "title", "icons"}
		case toks[2] == "annotations": // mcp.ToolAnnotations' fields
			order = []string{"destructiveHint", "idempotentHint", "openWorldHint", "readOnlyHint", "title"}
		case toks[2] == "icons": // mcp.Icon's fields
			order = []string{"src", "mimeType", "sizes", "theme"}
		case toks[2] == "_meta": // a map: encoding/json sorts its keys
			order = nil
		default:
			t.Fatalf("member-order warning at %s, which the SDK does not reorder", ptr)
		}
		slices.SortStableFunc(v.Members, func(a, b listing.Member) int {
			if order == nil {
				return strings.Compare(a.Key, b.Key)
			}
			return slices.Index(order, a.Key) - slices.Index(order, b.Key)
		})
	}
	if sortTools {
		slices.SortStableFunc(tools, func(a, b *listing.Value) int { return strings.Compare(a.Get("name").Str, b.Get("name").Str) })
	}
	return tools
}

// listTools runs the server, asks tools/list over the SDK's stdio transport (raw JSON-RPC, so
// that member order and number spelling are seen as sent) and calls the first tool.
func listTools(ctx context.Context, t *testing.T, bin string) ([]*listing.Value, *mcp.CallToolResult) {
	t.Helper()
	conn, err := (&mcp.CommandTransport{Command: exec.Command(bin)}).Connect(ctx)
	if err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	defer conn.Close()
	id := 0
	call := func(method string, params any) json.RawMessage {
		t.Helper()
		id++
		rid, _ := jsonrpc.MakeID(float64(id))
		b, err := json.Marshal(params)
		if err != nil {
			t.Fatal(err)
		}
		if err := conn.Write(ctx, &jsonrpc.Request{ID: rid, Method: method, Params: b}); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		for {
			msg, err := conn.Read(ctx)
			if err != nil {
				t.Fatalf("%s: reading the answer: %v", method, err)
			}
			resp, ok := msg.(*jsonrpc.Response)
			if !ok || resp.ID != rid {
				continue // a notification or request from the server
			}
			if resp.Error != nil {
				t.Fatalf("%s: %v", method, resp.Error)
			}
			return resp.Result
		}
	}
	call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "roundtrip-test", "version": "0"}})
	if err := conn.Write(ctx, &jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage("{}")}); err != nil {
		t.Fatal(err)
	}
	var tools []*listing.Value
	params := map[string]any{}
	for page := 0; ; page++ {
		res, err := listing.ParseJSON(call("tools/list", params))
		if err != nil {
			t.Fatalf("tools/list answer is not JSON: %v", err)
		}
		tools = append(tools, res.Get("tools").Items...)
		cur := res.Get("nextCursor")
		if !cur.IsString() || cur.Str == "" || page > 100 {
			break
		}
		params = map[string]any{"cursor": cur.Str}
	}
	if len(tools) == 0 {
		t.Fatal("the server lists no tools")
	}
	var res mcp.CallToolResult
	raw := call("tools/call", map[string]any{"name": tools[0].Get("name").Str, "arguments": map[string]any{}})
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("tools/call answer: %v", err)
	}
	return tools, &res
}

func sdkVersion(t *testing.T, goTool, root string) string {
	t.Helper()
	cmd := exec.Command(goTool, "list", "-m", "-f", "{{.Version}}", SDKModule)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -m %s: %v", SDKModule, err)
	}
	v := strings.TrimSpace(string(out))
	if v != SDKVersion {
		t.Logf("go.mod pins %s %s; the generator's rules were read from %s", SDKModule, v, SDKVersion)
	}
	return v
}
