// Command measure runs every case of the hostile corpus through the built workbench, as a
// person or a CI job would, and prints how long each entry point took and the most memory the
// process held (its peak resident set), against the bounds the README states:
//
//	go run ./internal/hostile/measure [-cases REGEXP] [-time 10s] [-rss 1024]
//
// The CLI's commands (check: text, reference, SARIF with --merge; cost; export --format go; fix
// --suggested) run as processes of their own (peak RSS from rusage); the API and the
// pages are served by a fresh `workbench serve` per case (peak RSS from /proc). It exits 1 if
// any entry point went over a bound or crashed.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tool-workbench/workbench/internal/hostile"
)

func main() {
	only := flag.String("cases", "", "run only the cases whose name matches this regular expression")
	maxTime := flag.Duration("time", 10*time.Second, "the bound on one entry point's time")
	maxRSS := flag.Int("rss", 1024, "the bound on a process's peak resident memory, in MiB")
	flag.Parse()
	if err := measure(*only, *maxTime, int64(*maxRSS)<<20); err != nil {
		fmt.Fprintln(os.Stderr, "measure:", err)
		os.Exit(1)
	}
}

type result struct {
	entry string
	took  time.Duration
	rss   int64 // bytes
	code  string
	note  string
}

func measure(only string, maxTime time.Duration, maxRSS int64) error {
	re, err := regexp.Compile(only)
	if err != nil {
		return fmt.Errorf("-cases: %w", err)
	}
	dir, err := os.MkdirTemp("", "workbench-measure-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "workbench")
	build := exec.Command("go", "build", "-o", bin, "./cmd/workbench")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("go build ./cmd/workbench (run from the module root): %w", err)
	}
	over := 0
	fmt.Printf("| case | size | entry point | time | peak RSS | answer |\n|---|---:|---|---:|---:|---|\n")
	for _, c := range hostile.Corpus() {
		if !re.MatchString(c.Name) {
			continue
		}
		src := filepath.Join(dir, c.Name+".json")
		if err := os.WriteFile(src, c.Listing, 0o644); err != nil {
			return err
		}
		var rs []result
		for _, args := range [][]string{{"check", src}, {"check", src, "--rules", "reference"}, {"cost", src}, {"export", src, "--format", "go"}, {"check", src, "--format", "sarif", "--merge", src}, {"fix", src, "--suggested"}} {
			rs = append(rs, runCLI(bin, dir, args, maxTime*3))
		}
		rs = append(rs, serveCase(bin, dir, c.Listing, maxTime*3)...)
		for _, r := range rs {
			flag := ""
			if r.took > maxTime || r.rss > maxRSS || r.code == "crash" || r.code == "killed" {
				flag, over = " **over**", over+1
			}
			fmt.Printf("| %s | %s | %s | %.2f s | %d MiB | %s%s%s |\n", c.Name, size(len(c.Listing)), r.entry,
				r.took.Seconds(), r.rss>>20, r.code, r.note, flag)
		}
	}
	if over > 0 {
		return fmt.Errorf("%d entry points went over a bound (%s, %d MiB) or crashed", over, maxTime, maxRSS>>20)
	}
	return nil
}

func size(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
}

// runCLI runs one command and reads its peak RSS from rusage.
func runCLI(bin, dir string, args []string, kill time.Duration) result {
	ctx, cancel := context.WithTimeout(context.Background(), kill)
	defer cancel()
	// A child's peak RSS starts at its parent's (Linux keeps it across fork and exec), and this
	// process holds the corpus: run the command under /usr/bin/time, which is small, and read
	// what it reports.
	hwm := filepath.Join(dir, "maxrss")
	cmd := exec.CommandContext(ctx, bin, args...)
	timeBin, terr := exec.LookPath("/usr/bin/time")
	if terr == nil {
		cmd = exec.CommandContext(ctx, timeBin, append([]string{"-q", "-f", "%M", "-o", hwm, bin}, args...)...)
	}
	// On a hang, kill the command and /usr/bin/time together.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Env = append(os.Environ(), "WORKBENCH_DB=", "WORKBENCH_ENDPOINTS=", "WORKBENCH_CACHE_DIR="+filepath.Join(dir, "cache"))
	var errb, outHead bytes.Buffer
	cmd.Stdout, cmd.Stderr = &headWriter{&outHead, 4 << 10}, &errb
	start := time.Now()
	err := cmd.Run()
	r := result{entry: strings.Join(append([]string{"cli", args[0]}, args[2:]...), " "), took: time.Since(start)}
	if b, err := os.ReadFile(hwm); terr == nil && err == nil {
		kb, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		r.rss = kb << 10
		os.Remove(hwm)
	} else if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.rss = ru.Maxrss << 10 // at least the parent's: an overestimate
	}
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	switch {
	case ctx.Err() != nil:
		r.code = "killed"
	case ws.Signaled():
		r.code = "crash"
	case err == nil:
		r.code = "exit 0"
	default:
		r.code = "exit " + strconv.Itoa(cmd.ProcessState.ExitCode())
	}
	if r.code == "exit 2" {
		msg := errb.String()
		if strings.TrimSpace(msg) == "" {
			msg = outHead.String() // reference mode prints its ERROR line where the reference does
		}
		r.note = ": " + firstLine(msg)
	}
	return r
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 90 {
		s = s[:87] + "..."
	}
	return strings.ReplaceAll(s, "|", "\\|")
}

// serveCase starts a fresh server and sends the case to the API and the pages, one request
// at a time, then reads the server's peak RSS (VmHWM).
func serveCase(bin, dir string, listing []byte, kill time.Duration) []result {
	db := filepath.Join(dir, fmt.Sprintf("wb-%d.db", time.Now().UnixNano()))
	cmd := exec.Command(bin, "serve", "--listen", "127.0.0.1:0", "--db", "sqlite:"+db)
	cmd.Env = append(os.Environ(), "WORKBENCH_ENDPOINTS=", "WORKBENCH_CACHE_DIR="+filepath.Join(dir, "cache"))
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return []result{{entry: "serve", code: "crash", note: ": " + err.Error()}}
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); os.Remove(db) }()
	base := ""
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if _, u, ok := strings.Cut(sc.Text(), "Tool Workbench on "); ok {
			base = u
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	if base == "" {
		return []result{{entry: "serve", code: "crash", note: ": no address printed"}}
	}
	client := &http.Client{Timeout: kill, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	var rs []result
	send := func(entry, method, path, ctype string, body []byte) *http.Response {
		req, _ := http.NewRequest(method, base+path, bytes.NewReader(body))
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		start := time.Now()
		resp, err := client.Do(req)
		r := result{entry: entry, took: time.Since(start)}
		if err != nil {
			r.code, r.note = "killed", ": "+err.Error()
			if cmd.ProcessState != nil || syscall.Kill(cmd.Process.Pid, 0) != nil {
				r.code = "crash"
			}
			rs = append(rs, r)
			return nil
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		r.took = time.Since(start)
		r.code = fmt.Sprintf("%d, %s", resp.StatusCode, size(int(n)))
		rs = append(rs, r)
		return resp
	}
	api := append(append([]byte(`{"listing": `), listing...), '}')
	send("api check", http.MethodPost, "/api/v1/check", "application/json", api)
	send("api cost", http.MethodPost, "/api/v1/cost", "application/json", api)
	// The start page posts multipart, which unlike a URL-encoded form does not grow the text.
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	_ = mw.WriteField("listing", string(listing))
	mw.Close()
	if resp := send("page import", http.MethodPost, "/workspaces", mw.FormDataContentType(), form.Bytes()); resp != nil {
		if loc := resp.Header.Get("Location"); strings.HasPrefix(loc, "/w/") {
			send("page open", http.MethodGet, loc, "", nil)
		}
	}
	if hwm := peakRSS(cmd.Process.Pid); hwm > 0 {
		for i := range rs {
			rs[i].rss = hwm
		}
	}
	return rs
}

// peakRSS reads a process's VmHWM from /proc.
func peakRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, ln := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(ln, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// headWriter keeps the first n bytes written to it and discards the rest.
type headWriter struct {
	b *bytes.Buffer
	n int
}

func (h *headWriter) Write(p []byte) (int, error) {
	if room := h.n - h.b.Len(); room > 0 {
		h.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
