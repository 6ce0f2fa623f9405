package analysis

import (
	"context"
	"fmt"
	"sync"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// The overlap map and the damage test for the browser. Both remember the last listing they saw
// (selection.OverlapCache, selection.DamageCache) and after an edit recompute only what the
// edit's words touched, so each workspace keeps its own pair of caches; they read tools and tasks
// through the engine's ranking cache, which every workspace shares.

// maxMapCaches bounds the workspaces whose caches are kept: a dropped pair costs that workspace
// one full computation (about 30 ms on the GitHub listing), an unbounded set a server's memory.
const maxMapCaches = 256

// wsMaps are one workspace's caches.
type wsMaps struct {
	overlap *selection.OverlapCache
	damage  *selection.DamageCache
}

// mapCaches are the caches of the workspaces, by key.
type mapCaches struct {
	mu sync.Mutex
	m  map[string]*wsMaps
}

// mapsOf returns key's caches, making them (and room for them) when absent.
func (e *Engine) mapsOf(key string) *wsMaps {
	mc := &e.maps
	mc.mu.Lock()
	defer mc.mu.Unlock()
	if c, ok := mc.m[key]; ok {
		return c
	}
	if mc.m == nil {
		mc.m = map[string]*wsMaps{}
	}
	if len(mc.m) >= maxMapCaches {
		for k := range mc.m { // any one: map order is random
			delete(mc.m, k)
			break
		}
	}
	c := &wsMaps{overlap: selection.NewOverlapCache(e.ranks), damage: selection.NewDamageCache(e.ranks)}
	mc.m[key] = c
	return c
}

// AnalyzeKeyed is AnalyzeContext for a listing being edited under key (a workspace): with
// tasks, the result also holds the damage test (Result.Damage), computed again only for the
// tools an edit touched.
func (e *Engine) AnalyzeKeyed(ctx context.Context, key string, l *listing.Listing, tasks []selection.Task) (*Result, error) {
	r, err := e.AnalyzeContext(ctx, l, tasks)
	if err != nil || len(tasks) == 0 {
		return r, err
	}
	if r.Damage, err = e.mapsOf(key).damage.Test(ctx, l, tasks); err != nil {
		return nil, fmt.Errorf("analysis: %w", err)
	}
	return r, nil
}

// OverlapKeyed maps the overlap of l's tools for the listing being edited under key, with the
// verdicts vs of its tasks on l (nil for none: the map then comes from the words alone).
func (e *Engine) OverlapKeyed(ctx context.Context, key string, l *listing.Listing, vs []selection.Verdict) (*selection.OverlapMap, error) {
	m, err := e.mapsOf(key).overlap.Map(ctx, l, vs)
	if err != nil {
		return nil, fmt.Errorf("analysis: overlap map: %w", err)
	}
	return m, nil
}
