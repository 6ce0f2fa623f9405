package review

import (
	"encoding/json"
	"testing"

	"github.com/tool-workbench/workbench/store"
)

// TestRequireSetting: without a setting the gate requires one approval; a stored setting is
// what Status(0) requires, an explicit require still wins; SetRequire takes 1 to 10 only, and
// a stored value that is not one is an error, never a weaker default.
func TestRequireSetting(t *testing.T) {
	f := newFixture(t, threeTools)
	status := func(require int) Status {
		t.Helper()
		st, err := f.svc.Status(f.ctx, f.ws, require)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	if st := status(0); st.Require != DefaultRequire {
		t.Errorf("no setting: require %d; want %d", st.Require, DefaultRequire)
	}
	for _, bad := range []int{0, -1, MaxRequireSetting + 1} {
		if err := f.svc.SetRequire(f.ctx, f.ws, bad); store.KindOf(err) != store.Invalid {
			t.Errorf("SetRequire(%d): %v; want Invalid", bad, err)
		}
	}
	if err := f.svc.SetRequire(f.ctx, "0123456789abcdef0123456789abcdef", 2); store.KindOf(err) != store.NotFound {
		t.Errorf("SetRequire on no workspace: %v; want NotFound", err)
	}
	if err := f.svc.SetRequire(f.ctx, f.ws, 3); err != nil {
		t.Fatal(err)
	}
	f.signOff("Ana", store.Approved)
	if st := status(0); st.Require != 3 || st.Passed {
		t.Errorf("setting 3: require %d passed %v; want 3, false", st.Require, st.Passed)
	}
	if st := status(1); st.Require != 1 || !st.Passed {
		t.Errorf("explicit require 1 with setting 3: require %d passed %v; want 1, true", st.Require, st.Passed)
	}
	for _, stored := range []string{`"3"`, `0`, `11`, `2.5`, `{"n":2}`} {
		if err := f.st.PutMeta(f.ctx, f.ws, RequireMetaKey, json.RawMessage(stored)); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.Status(f.ctx, f.ws, 0); err == nil {
			t.Errorf("stored setting %s: Status(0) answered; want an error", stored)
		}
	}
}
