package web

import (
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing/remote"
)

// TestFetchStdio launches the remote package's stdio test server from the start page's form,
// which only a server started with --allow-stdio may do.
func TestFetchStdio(t *testing.T) {
	goBin := testutil.GoCommand(t)
	bin := filepath.Join(t.TempDir(), "testserver")
	if out, err := exec.Command(goBin, "build", "-o", bin, "../listing/remote/internal/testserver").CombinedOutput(); err != nil {
		t.Fatalf("build the stdio test server: %v\n%s", err, out)
	}
	s := fetchServer(t, remote.LocalPolicy(), nil)
	s.fetch.AllowStdio, s.stdioToken = true, NewID() // as New does with --allow-stdio
	home := getPage(t, s, "/")
	if !strings.Contains(home, `<option value="stdio"`) {
		t.Errorf("with stdio allowed the form does not offer it")
	}
	// The launch must carry the token the server's own page holds; a form without it (from a
	// page of another origin, which cannot read this one) launches nothing.
	m := regexp.MustCompile(`name="stdio_token" value="([0-9a-f]+)"`).FindStringSubmatch(home)
	if m == nil {
		t.Fatal("the page's fetch form carries no stdio token")
	}
	for _, tok := range []string{"", strings.Repeat("0", len(m[1]))} {
		rec := fetchHome(t, s, url.Values{"transport": {"stdio"}, "command": {bin}, "stdio_token": {tok}})
		if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "stdio token") {
			t.Errorf("a launch with token %q: status %d, want 400 naming the stdio token", tok, rec.Code)
		}
	}
	rec := fetchHome(t, s, url.Values{"transport": {"stdio"}, "command": {bin + " -tools 5 -pagesize 2"}, "stdio_token": {m[1]}})
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
	}
	page := getPage(t, s, rec.Header().Get("Location"))
	if n := len(find(t, page, "tool-row")); n != 5 {
		t.Errorf("tool rows: %d, want 5", n)
	}
	if n := find(t, page, "server-name"); len(n) != 1 || text(n[0]) != "testserver" {
		t.Errorf("server name not shown")
	}
	if !strings.Contains(page, "in 3 page(s)") {
		t.Errorf("pages not shown")
	}

	// Without --allow-stdio the form does not offer it and the handler refuses it.
	off := fetchServer(t, remote.LocalPolicy(), nil)
	if page := getPage(t, off, "/"); strings.Contains(page, `<option value="stdio"`) {
		t.Errorf("with stdio off the form offers it")
	}
	rec = fetchHome(t, off, url.Values{"transport": {"stdio"}, "command": {bin}})
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "--allow-stdio") {
		t.Errorf("stdio without --allow-stdio: status %d", rec.Code)
	}
}

func TestStdioEnvKeepsSecretsOut(t *testing.T) {
	t.Setenv("AWS_SECRET_ACCESS_KEY", "do-not-pass")
	t.Setenv("PATH", "/usr/bin:/bin")
	env := strings.Join(stdioEnv(), "\n")
	if strings.Contains(env, "do-not-pass") {
		t.Errorf("a launched command would get the server's secrets: %s", env)
	}
	if !strings.Contains(env, "PATH=/usr/bin:/bin") {
		t.Errorf("a launched command would not find programs: %s", env)
	}
}

func FuzzParseHeaders(f *testing.F) {
	for _, s := range []string{"", "X-A: 1", "X-A: 1\nX-B:2\n\n", "no colon", ": empty name", "Bad Name: x", "A: b: c", "\r\nA:\t1\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		h, err := parseHeaders(text)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "Header line ") {
				t.Errorf("error %q does not name the line", err)
			}
			return
		}
		lines := 0
		for _, ln := range strings.Split(text, "\n") {
			if strings.TrimSpace(ln) != "" {
				lines++
			}
		}
		n := 0
		for k, vs := range h {
			if k == "" || strings.ContainsAny(k, " \t") {
				t.Errorf("header name %q", k)
			}
			n += len(vs)
		}
		if n != lines {
			t.Errorf("%d values from %d lines", n, lines)
		}
	})
}
