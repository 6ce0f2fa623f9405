// Package export turns a listing into the artefacts a design session ends with: the revised
// listing as JSON, Go code that registers its tools with github.com/modelcontextprotocol/go-sdk,
// and a Markdown review report of what changed since a baseline.
//
// The package computes; it does not log or touch files. Lint findings, token counts and task
// verdicts come in through ReviewOptions.Analyze, which the workbench fills from its one engine
// (analysis.Engine.ReviewOptions), so that the report states the figures the app shows.
package export

import "github.com/tool-workbench/workbench/listing"

// JSONOptions choose the form of the exported listing.
type JSONOptions struct {
	// Bare writes a bare array of tools instead of the tools/list result object.
	Bare bool
	// Compact writes no whitespace; otherwise two-space indentation.
	Compact bool
}

// JSON encodes the listing's current tools as a tools/list result (with the envelope members it
// came with, such as nextCursor) or as a bare array. Key order, unknown fields and number
// spelling are kept as read; the output ends with a newline.
func JSON(l *listing.Listing, opts JSONOptions) []byte {
	v := l.Result()
	if opts.Bare {
		v = listing.NewArray(l.Tools...)
	}
	indent := "  "
	if opts.Compact {
		indent = ""
	}
	return append(listing.Marshal(v, indent), '\n')
}
