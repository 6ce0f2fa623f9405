package web

import (
	"crypto/sha256"
	"strconv"
	"strings"
	"weak"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/internal/lru"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
)

// The page's Fix buttons are made again with every change's state, and making every tool's
// repairs costs as much as the analysis that found them (70 ms at 2,000 tools). A change edits
// one tool, and tool values are immutable (an edit copies the tool it changes): a tool's
// repairs are kept by its value, its place, the listing's names (a rename's new name must be
// free) and its findings, and only the tools a change touched are repaired again. The cache is
// the server's, bounded by entries and, with the server's other caches, by bytes (Config
// CacheBytes).

// maxRepairEntries bounds the tools whose repairs are kept, over all workspaces.
const maxRepairEntries = 20000

type repairKey struct {
	// tool is the tool's value, weakly: the cache keeps no listing alive (a value dropped
	// leaves an entry no lookup finds, which the bounds drop in time).
	tool     weak.Pointer[listing.Value]
	index    int
	names    [32]byte // the listing's names, hashed
	findings string   // the tool's findings: rule, pointer and message of each
}

// repairCache is a tool's repairs by repairKey.
type repairCache = lru.Cache[repairKey, []lint.Repair]

func newRepairCache(b *lru.Budget) *repairCache {
	return lru.New[repairKey, []lint.Repair](b, maxRepairEntries)
}

// pageRepairs are the repairs of the findings res shows, for the page's Fix buttons, made from
// the analysis the page has already (Engine.Repairs would analyse the listing again) and kept
// per tool in c. Preview and Apply ask the engine, which makes them again from the listing.
func pageRepairs(c *repairCache, l *listing.Listing, res *analysis.Result) []lint.Repair {
	out := lint.Repairs(l, lintFindings(res.Listing))
	names := sha256.Sum256([]byte(strings.Join(l.Names(), "\x00")))
	for _, t := range res.Tools {
		if len(t.Findings) == 0 || t.Index < 0 || t.Index >= len(l.Tools) {
			continue
		}
		k := repairKey{tool: weak.Make(l.Tools[t.Index]), index: t.Index, names: names, findings: findingsKey(t.Findings)}
		reps, ok := c.Get(k)
		if !ok {
			reps = lint.Repairs(l, lintFindings(t.Findings))
			c.Add(k, reps, int64(len(k.findings))+repairsSize(reps))
		}
		out = append(out, reps...)
	}
	return out
}

// repairsSize estimates the bytes reps keep reachable: their strings, and the values their
// edits set, which a repair makes anew (a member of the fixed tool).
func repairsSize(reps []lint.Repair) int64 {
	n := int64(0)
	for _, r := range reps {
		n += int64(len(r.ID)+len(r.Rule)+len(r.Kind)+len(r.Tool)+len(r.Pointer)+len(r.Title)) + 160
		for _, op := range r.Ops {
			n += int64(len(op.Path)) + 64 + valueSize(op.Value)
		}
		for _, rn := range r.Renames {
			n += int64(len(rn.From)+len(rn.To)) + 32
		}
	}
	return n
}

// valueSize estimates the bytes of v and what it holds.
func valueSize(v *listing.Value) int64 {
	if v == nil {
		return 0
	}
	n := int64(96 + len(v.Str))
	for _, it := range v.Items {
		n += 8 + valueSize(it)
	}
	for _, m := range v.Members {
		n += int64(32+len(m.Key)) + valueSize(m.Value)
	}
	return n
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
