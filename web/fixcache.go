package web

import (
	"crypto/sha256"
	"strconv"
	"strings"
	"sync"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
)

// The page's Fix buttons are made again with every change's state, and making every tool's
// repairs costs as much as the analysis that found them (70 ms at 2,000 tools). A change edits
// one tool, and tool values are immutable (an edit copies the tool it changes): a tool's
// repairs are kept by its value, its place, the listing's names (a rename's new name must be
// free) and its findings, and only the tools a change touched are repaired again.

// maxRepairEntries bounds the tools whose repairs are kept, over all workspaces.
const maxRepairEntries = 20000

type repairKey struct {
	tool     *listing.Value
	index    int
	names    [32]byte // the listing's names, hashed
	findings string   // the tool's findings: rule, pointer and message of each
}

type repairCache struct {
	mu sync.Mutex
	m  map[repairKey][]lint.Repair
}

var pageRepairCache = repairCache{m: map[repairKey][]lint.Repair{}}

// pageRepairs are the repairs of the findings res shows, for the page's Fix buttons, made from
// the analysis the page has already (Engine.Repairs would analyse the listing again) and kept
// per tool. Preview and Apply ask the engine, which makes them again from the listing.
func pageRepairs(l *listing.Listing, res *analysis.Result) []lint.Repair {
	out := lint.Repairs(l, lintFindings(res.Listing))
	names := sha256.Sum256([]byte(strings.Join(l.Names(), "\x00")))
	c := &pageRepairCache
	for _, t := range res.Tools {
		if len(t.Findings) == 0 || t.Index < 0 || t.Index >= len(l.Tools) {
			continue
		}
		k := repairKey{tool: l.Tools[t.Index], index: t.Index, names: names, findings: findingsKey(t.Findings)}
		c.mu.Lock()
		reps, ok := c.m[k]
		c.mu.Unlock()
		if !ok {
			reps = lint.Repairs(l, lintFindings(t.Findings))
			c.mu.Lock()
			if len(c.m) >= maxRepairEntries {
				clear(c.m)
			}
			c.m[k] = reps
			c.mu.Unlock()
		}
		out = append(out, reps...)
	}
	return out
}

func lintFindings(fs []analysis.Finding) []lint.Finding {
	out := make([]lint.Finding, len(fs))
	for i, f := range fs {
		out[i] = lint.Finding{Rule: f.Rule, Severity: lint.Severity(f.Severity), Tool: f.Tool, ToolIndex: f.ToolIndex,
			Pointer: f.Pointer, Message: f.Message}
	}
	return out
}

func findingsKey(fs []analysis.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.Rule)
		b.WriteByte(0)
		b.WriteString(f.Pointer)
		b.WriteByte(0)
		b.WriteString(f.Message)
		b.WriteByte(0)
		b.WriteString(strconv.Itoa(f.ToolIndex))
		b.WriteByte(0)
	}
	return b.String()
}
