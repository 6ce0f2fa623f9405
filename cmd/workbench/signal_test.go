package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSignalEndsCommand: SIGINT and SIGTERM cancel a command's context and end the process
// with 130 and 143, whether the command honours its context or is stuck where no context
// reaches (then after a short grace, saying so).
func TestSignalEndsCommand(t *testing.T) {
	for _, tc := range []struct {
		name     string
		sig      syscall.Signal
		honours  bool
		code     int
		stderrRe string
	}{
		{"SIGINT, honoured", syscall.SIGINT, true, 130, ""},
		{"SIGTERM, honoured", syscall.SIGTERM, true, 143, ""},
		{"SIGINT, stuck", syscall.SIGINT, false, 130, "stopped by interrupt"},
		{"SIGTERM, stuck", syscall.SIGTERM, false, 143, "stopped by terminated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stuck := make(chan struct{})
			defer close(stuck)
			var stderr bytes.Buffer
			code := runUntilSignalled([]string{"check"}, &stderr, func(ctx context.Context) int {
				// Notify is in place before body runs, so the signal reaches the channel.
				if err := syscall.Kill(os.Getpid(), tc.sig); err != nil {
					t.Error(err)
				}
				if tc.honours {
					<-ctx.Done()
					return 1
				}
				<-stuck
				return 0
			})
			if code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
			if got := strings.TrimSpace(stderr.String()); !strings.Contains(got, tc.stderrRe) || (tc.stderrRe == "" && got != "") {
				t.Errorf("stderr %q, want %q", got, tc.stderrRe)
			}
		})
	}
}

// TestSignalEndsCheckReadingStdin runs the built binary: `workbench check -` waits on a
// standard input that never ends, and SIGINT ends it with 130, SIGTERM with 143.
func TestSignalEndsCheckReadingStdin(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short: builds the workbench binary")
	}
	bin := buildWorkbench(t)
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			// A signal that lands before the process has set up its handler kills it the
			// default way; wait longer and try again then.
			for wait := 200 * time.Millisecond; wait < 10*time.Second; wait *= 2 {
				cmd := exec.Command(bin, "check", "-")
				cmd.Env = crashEnv(t.TempDir())
				in, err := cmd.StdinPipe()
				if err != nil {
					t.Fatal(err)
				}
				defer in.Close()
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				time.Sleep(wait)
				_ = cmd.Process.Signal(tc.sig)
				err = cmd.Wait()
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					t.Fatalf("check ended with %v, want exit %d", err, tc.code)
				}
				if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					continue // too early: the runtime had not installed the handler yet
				}
				if ee.ExitCode() != tc.code {
					t.Fatalf("exit code %d, want %d", ee.ExitCode(), tc.code)
				}
				return
			}
			t.Fatal("the process was killed by the signal every time instead of exiting with a code")
		})
	}
}

// TestCommandTimeLimit: every command but serve stops at WORKBENCH_TIMEOUT, its work included
// (check, cost and export honour their context), and says so; a bad value is a usage error.
func TestCommandTimeLimit(t *testing.T) {
	src := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(src, []byte(`{"tools": [{"name": "get_book", "description": "Return one book by its id.", "inputSchema": {"type": "object"}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		limit string
		args  []string
		code  int
		want  string
	}{
		{"1ns", []string{"check", src}, 2, "check stopped after 1ns, its time limit"},
		{"1ns", []string{"cost", src}, 2, "cost stopped after 1ns"},
		{"1ns", []string{"export", src}, 2, "export stopped after 1ns"},
		{"1m", []string{"check", src}, 0, ""},
		{"soon", []string{"check", src}, 2, `WORKBENCH_TIMEOUT="soon" is not a duration`},
	} {
		t.Run(tc.limit+" "+tc.args[0], func(t *testing.T) {
			var out, errb bytes.Buffer
			getenv := func(k string) string {
				if k == "WORKBENCH_TIMEOUT" {
					return tc.limit
				}
				return ""
			}
			code := exitCode(run(context.Background(), tc.args, getenv, strings.NewReader(""), &out, &errb), &errb)
			if code != tc.code || !strings.Contains(errb.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errb.String(), tc.code, tc.want)
			}
		})
	}
}
