// Command testserver is an MCP server on stdio, built with the official Go SDK, that the tests
// of package remote and of the workbench CLI launch to fetch a listing over stdio.
//
//	testserver [-tools N] [-pagesize P] [-variant V] [-garbage]
//
// It serves N tools (tool_00, tool_01, …) in pages of P; -variant changes the first tool's
// description so that two launches differ; -garbage writes a line that is not JSON-RPC instead
// of serving.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	n := flag.Int("tools", 5, "number of tools")
	pageSize := flag.Int("pagesize", 2, "tools per tools/list page")
	variant := flag.String("variant", "", "text appended to the first tool's description")
	garbage := flag.Bool("garbage", false, "answer with a line that is not JSON-RPC")
	flag.Parse()
	if *garbage {
		fmt.Println("this is not JSON-RPC")
		// Keep stdin open until the client gives up, as a confused server would.
		buf := make([]byte, 1024)
		for {
			if _, err := os.Stdin.Read(buf); err != nil {
				return
			}
		}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "testserver", Version: "1.2.3"}, &mcp.ServerOptions{PageSize: *pageSize})
	for i := range *n {
		desc := fmt.Sprintf("Tool number %d of the stdio test server.", i)
		if i == 0 {
			desc += *variant
		}
		s.AddTool(&mcp.Tool{
			Name:        fmt.Sprintf("tool_%02d", i),
			Description: desc,
			// Raw, so the schema's key order is the server's own.
			InputSchema: json.RawMessage(`{"type":"object","required":["z"],"properties":{"z":{"type":"string"},"a":{"type":"integer"}}}`),
		}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		os.Exit(1)
	}
}
