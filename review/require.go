package review

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/tool-workbench/workbench/store"
)

// The workspace's "approvals required" setting: how many people must approve the head when
// the gate is asked without a number (the Review panel always, GET …/review without
// ?require, `workbench review status` without --require). It is kept beside the workspace
// (store meta RequireMetaKey, a JSON number; forks copy it), so that the panel and a CI job
// that does not say agree; a CI job that does say (--require 2) still decides for itself.
const (
	RequireMetaKey     = "review-require"
	DefaultRequire     = 1
	MaxRequireSetting  = 10 // the panel's choice; an explicit require goes up to MaxRequire
	requireSettingHint = "choose it again in the Review panel (1 to 10)"
)

// Require returns workspace ws's approvals-required setting (DefaultRequire when none is
// stored). A stored value that is not a whole number from 1 to MaxRequireSetting is an error,
// not a default: a gate must not pass on fewer approvals than someone set.
func (s *Service) Require(ctx context.Context, ws string) (int, error) {
	const op = "read the approvals required"
	b, err := s.st.Meta(ctx, ws, RequireMetaKey)
	if store.KindOf(err) == store.NotFound {
		// No setting, or no workspace: Status's own read of the workspace says which.
		return DefaultRequire, nil
	}
	if err != nil {
		return 0, err
	}
	var n int
	if json.Unmarshal(b, &n) != nil || n < 1 || n > MaxRequireSetting {
		return 0, store.Errorf(store.Internal, op, "workspace %s's approvals-required setting is %s, not a whole number from 1 to %d; %s",
			ws, strconv.Quote(clip(clean(string(b)), 20)), MaxRequireSetting, requireSettingHint)
	}
	return n, nil
}

// SetRequire stores workspace ws's approvals-required setting, n from 1 to MaxRequireSetting.
// The store sends an EventMeta naming RequireMetaKey, on which every page of the workspace
// shows the gate again.
func (s *Service) SetRequire(ctx context.Context, ws string, n int) error {
	const op = "set the approvals required"
	if n < 1 || n > MaxRequireSetting {
		return store.Errorf(store.Invalid, op, "%d approvals required is not a choice; choose 1 to %d", n, MaxRequireSetting)
	}
	if _, err := s.st.Workspace(ctx, ws); err != nil {
		return err
	}
	return s.st.PutMeta(ctx, ws, RequireMetaKey, json.RawMessage(strconv.Itoa(n)))
}
