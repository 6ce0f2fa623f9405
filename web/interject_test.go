package web

import (
	"context"
	"sync"

	"github.com/tool-workbench/workbench/store"
)

// interject is a store in which someone else's change lands just before one call of this
// server's: the first call to method that when accepts (nil: any), once arm has given the
// change. The change gets the store underneath. The tests inject their races with it.
type interject struct {
	store.Store
	method string
	when   func(arg any) bool

	mu  sync.Mutex
	run func(st store.Store)
}

func (j *interject) arm(run func(st store.Store)) {
	j.mu.Lock()
	j.run = run
	j.mu.Unlock()
}

func (j *interject) before(method string, arg any) {
	j.mu.Lock()
	run := j.run
	if method != j.method || run == nil || j.when != nil && !j.when(arg) {
		j.mu.Unlock()
		return
	}
	j.run = nil
	j.mu.Unlock()
	run(j.Store)
}

func (j *interject) AppendEdit(ctx context.Context, e store.Edit) (store.EditResult, error) {
	j.before("AppendEdit", e)
	return j.Store.AppendEdit(ctx, e)
}

func (j *interject) PutTasks(ctx context.Context, te store.TaskEdit) (store.EditResult, error) {
	j.before("PutTasks", te)
	return j.Store.PutTasks(ctx, te)
}

func (j *interject) PutRun(ctx context.Context, r store.Run) (store.Run, error) {
	j.before("PutRun", r)
	return j.Store.PutRun(ctx, r)
}

func (j *interject) Revision(ctx context.Context, ws string, n int) (store.Revision, error) {
	j.before("Revision", n)
	return j.Store.Revision(ctx, ws, n)
}
