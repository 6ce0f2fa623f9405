package main

import (
	"context"
	"fmt"

	"github.com/tool-workbench/workbench/web"
)

// serveRunsConfig wires the Runs tab: the endpoints of --endpoints FILE (else
// $WORKBENCH_ENDPOINTS; neither means the tab says how to configure one), the response cache
// and the offline token estimate that 'workbench run' uses. Runs stop with ctx; they are kept
// as interrupted and can be resumed from the page.
func serveRunsConfig(ctx context.Context, e *env, path, cacheDir string) (web.RunsConfig, error) {
	cfg := web.RunsConfig{Getenv: e.getenv, Estimate: estimator("o200k_base"), Context: ctx}
	if path == "" {
		path = e.getenv("WORKBENCH_ENDPOINTS")
	}
	if path != "" {
		eps, err := loadEndpoints(e, path)
		if err != nil {
			return cfg, usageError{fmt.Sprintf("--endpoints: %v", err)}
		}
		cfg.Endpoints = eps
		names := make([]string, len(eps))
		for i, ep := range eps {
			names[i] = ep.Name
		}
		e.log.Info("model endpoints", "file", path, "endpoints", names)
	}
	if cache, where := openCache(e, cacheDir); cache != nil {
		cfg.Cache = cache
		e.log.Debug("response cache", "dir", where)
	}
	return cfg, nil
}
