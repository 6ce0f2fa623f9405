package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tool-workbench/workbench/internal/testutil"
)

// TestServeSurvivesSIGKILLMidBurst is issue 6 for the real server process: it kills
// `workbench serve` with SIGKILL while a client is sending a burst of listing edits, restarts it
// on the same SQLite file, and checks that `workbench db check` passes and that every edit the
// server acknowledged (answered 200) is in the history and the head. The store has the same test
// for a bare store process; this one covers the HTTP path (the API answers only after Commit).
func TestServeSurvivesSIGKILLMidBurst(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the workbench binary and kills it mid-burst")
	}
	bin := buildWorkbench(t)
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "w.db")

	base, proc, exited := startServeProcess(t, bin, dir, db)
	client := &http.Client{Timeout: 10 * time.Second}
	id := createProbeWorkspace(t, client, base)

	// The kill point varies from run to run, so that -count=N samples several moments.
	high := burstUntilKilled(t, client, base, id, proc, exited, int64(30+rand.IntN(51)))

	// The file as the crash left it must pass the integrity check, and again once a restarted
	// server has opened it.
	dbCheck(t, bin, dir, db)
	base, _, _ = startServeProcess(t, bin, dir, db)
	dbCheck(t, bin, dir, db)
	checkAcknowledgedKept(t, client, base, id, high)
}

// burstUntilKilled sends numbered edits to the workspace and SIGKILLs the server once killAfter
// of them are acknowledged; it returns the highest acknowledged edit.
func burstUntilKilled(t *testing.T, client *http.Client, base, id string, proc *exec.Cmd, exited <-chan struct{}, killAfter int64) int {
	t.Helper()
	const maxEdits = 5000 // bounds the burst should the kill never come
	var acked atomic.Int64
	burstDone := make(chan error, 1)
	go func() {
		for n := 1; n <= maxEdits; n++ {
			code, err := putProbeEdit(client, base, id, n)
			if err != nil {
				burstDone <- err // expected once the server is killed
				return
			}
			if code != http.StatusOK && code != http.StatusCreated {
				burstDone <- fmt.Errorf("edit %d: status %d", n, code)
				return
			}
			acked.Store(int64(n))
		}
		burstDone <- fmt.Errorf("the burst of %d edits ended before the kill", maxEdits)
	}()
	deadline := time.Now().Add(60 * time.Second)
	for acked.Load() < killAfter {
		select {
		case err := <-burstDone:
			t.Fatalf("the burst stopped after %d acknowledged edits, before the kill: %v", acked.Load(), err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d edits acknowledged in 60s", acked.Load(), killAfter)
		}
		time.Sleep(time.Millisecond)
	}
	// Process.Kill is SIGKILL on Unix: no shutdown code runs, as in a crash or an OOM kill.
	if err := proc.Process.Kill(); err != nil {
		t.Fatalf("kill: %v", err)
	}
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not exit within 30s of SIGKILL")
	}
	select {
	case <-burstDone:
	case <-time.After(30 * time.Second):
		t.Fatal("the burst did not stop within 30s of the kill")
	}
	high := int(acked.Load())
	t.Logf("killed after edit %d was acknowledged (target %d)", high, killAfter)
	return high
}

// checkAcknowledgedKept requires every edit up to high in the history, and the head to hold
// the last of them or a later one.
func checkAcknowledgedKept(t *testing.T, client *http.Client, base, id string, high int) {
	t.Helper()
	var revs struct {
		Revisions []struct {
			Number  int    `json:"number"`
			Message string `json:"message"`
		} `json:"revisions"`
	}
	getJSON(t, client, base+"/api/v1/workspaces/"+id+"/revisions", &revs)
	editMsg := regexp.MustCompile(`^edit (\d+)$`)
	seen := map[int]bool{}
	for _, r := range revs.Revisions {
		if m := editMsg.FindStringSubmatch(r.Message); m != nil {
			n, _ := strconv.Atoi(m[1])
			seen[n] = true
		}
	}
	var missing []int
	for n := 1; n <= high; n++ {
		if !seen[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		t.Errorf("acknowledged edits missing from the history after the restart: %v (history has %d revisions)", missing, len(revs.Revisions))
	}

	var head struct {
		Tools []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"tools"`
	}
	getJSON(t, client, base+"/api/v1/workspaces/"+id+"/listing", &head)
	if len(head.Tools) != 1 {
		t.Fatalf("head listing has %d tools, want 1: %+v", len(head.Tools), head.Tools)
	}
	m := editMsg.FindStringSubmatch(head.Tools[0].Description)
	if m == nil {
		t.Fatalf("head description %q is not an edit of the burst", head.Tools[0].Description)
	}
	if n, _ := strconv.Atoi(m[1]); n < high {
		t.Errorf("head holds edit %d, older than the last acknowledged edit %d", n, high)
	}
}

// buildWorkbench builds the binary from the module root into the test's temporary directory.
func buildWorkbench(t *testing.T) string {
	t.Helper()
	goBin := testutil.GoCommand(t)
	root := testutil.ModuleRoot(t)
	bin := filepath.Join(t.TempDir(), "workbench")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goBin, "build", "-o", bin, "./cmd/workbench")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/workbench: %v\n%s", err, out)
	}
	return bin
}

// crashEnv keeps the child off the developer's configuration: no endpoints, a private cache.
func crashEnv(dir string) []string {
	return append(os.Environ(), "WORKBENCH_DB=", "WORKBENCH_ENDPOINTS=", "WORKBENCH_CACHE_DIR="+filepath.Join(dir, "cache"))
}

// startServeProcess starts `workbench serve` on a free loopback port and returns its base URL.
// The process is killed in t.Cleanup if it still runs; the channel closes once it has exited.
// Only the goroutine here calls Wait: exec.Cmd allows one.
func startServeProcess(t *testing.T, bin, dir, db string) (string, *exec.Cmd, <-chan struct{}) {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--listen", "127.0.0.1:0", "--db", db)
	cmd.Dir = dir
	cmd.Env = crashEnv(dir)
	var errOut syncBuffer
	cmd.Stderr = &errOut
	// Bounds Wait should a pipe stay open after the process is gone.
	cmd.WaitDelay = 5 * time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start serve: %v", err)
	}
	exited := make(chan struct{})
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	addr := make(chan string, 1)
	go func() {
		defer close(exited)
		sc := bufio.NewScanner(stdout)
		re := regexp.MustCompile(`Tool Workbench on (http://\S+)`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		// Wait only after stdout is drained, as exec.Cmd requires.
		_ = cmd.Wait()
	}()
	select {
	case a := <-addr:
		return a, cmd, exited
	case <-exited:
		t.Fatalf("serve exited before printing its address:\n%s", errOut.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("serve printed no address in 30s:\n%s", errOut.String())
	}
	return "", nil, nil
}

func createProbeWorkspace(t *testing.T, client *http.Client, base string) string {
	t.Helper()
	body := `{"title": "crash probe", "listing": {"tools": [{"name": "probe", "description": "edit 0", "inputSchema": {"type": "object"}}]}}`
	resp, err := client.Post(base+"/api/v1/workspaces", "application/json", bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatalf("create workspace: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create workspace: status %d: %s", resp.StatusCode, b)
	}
	var w struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(b, &w); err != nil || w.ID == "" {
		t.Fatalf("create workspace: no id in %s (%v)", b, err)
	}
	return w.ID
}

// putProbeEdit replaces the listing with one whose description and revision message carry n.
func putProbeEdit(client *http.Client, base, id string, n int) (int, error) {
	body := fmt.Sprintf(`{"message": "edit %d", "listing": {"tools": [{"name": "probe", "description": "edit %d", "inputSchema": {"type": "object"}}]}}`, n, n)
	req, err := http.NewRequest(http.MethodPut, base+"/api/v1/workspaces/"+id+"/listing", bytes.NewReader([]byte(body)))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	// A body cut short by the kill means the answer never fully arrived: not acknowledged.
	if _, err := io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)); err != nil {
		return 0, err
	}
	return resp.StatusCode, nil
}

func getJSON(t *testing.T, client *http.Client, url string, v any) {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d: %s", url, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("GET %s: %v in %s", url, err, b)
	}
}

// dbCheck runs `workbench db check` and wants exit 0 and an "integrity: ok" line.
func dbCheck(t *testing.T, bin, dir, db string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "db", "check", "--db", db)
	cmd.Dir = dir
	cmd.Env = crashEnv(dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("workbench db check: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`(?m)^integrity: ok$`).Match(out) {
		t.Errorf("workbench db check did not report integrity ok:\n%s", out)
	}
}
