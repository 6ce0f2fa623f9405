package goinstall

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

const modulePath = "github.com/tool-workbench/workbench"

// TestGoInstallFromCleanCache does what a user's `go install MODULE/cmd/workbench@VERSION`
// does, offline: the repository's committed files at HEAD, zipped as the module proxy would
// serve them, are installed at a pseudo-version naming HEAD into an empty module cache, and
// the installed binary's `version` must name HEAD's commit. It fails on what only a module
// build sees: a replace directive, a file the module zip leaves out (embedded static files,
// generated templ code not committed), a version command that lies.
//
// The dependencies come from this machine's module cache (as a file:// proxy), so no network
// is needed. -trimpath keeps the build cache's keys free of the temporary module cache's
// path, so that the dependencies compile once per machine; the workbench's own packages
// compile again at each commit (their trimmed paths name the version).
func TestGoInstallFromCleanCache(t *testing.T) {
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH: cannot test go install")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git on PATH: cannot read the committed files")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	root, err := gitOut(ctx, ".", "rev-parse", "--show-toplevel")
	if err != nil {
		t.Skipf("not in a git checkout (%v): go install is tested from the repository's commits", err)
	}
	head, err := gitOut(ctx, root, "rev-parse", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	ct, err := gitOut(ctx, root, "show", "-s", "--format=%ct", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	secs, err := strconv.ParseInt(ct, 10, 64)
	if err != nil {
		t.Fatalf("commit time %q: %v", ct, err)
	}
	pseudo := module.PseudoVersion("v0", "", time.Unix(secs, 0), head[:12])
	realCache, err := goOut(ctx, goBin, "env", "GOMODCACHE")
	if err != nil {
		t.Fatal(err)
	}

	tmp := t.TempDir()
	// The module cache is read-only (-modcacherw should spare this): make it removable.
	t.Cleanup(func() { makeWritable(filepath.Join(tmp, "modcache")) })
	proxy := filepath.Join(tmp, "proxy")
	writeProxy(ctx, t, proxy, root, pseudo, secs)

	bin := filepath.Join(tmp, "bin")
	cmd := exec.CommandContext(ctx, goBin, "install", modulePath+"/cmd/workbench@"+pseudo)
	cmd.Dir = tmp // outside any module: go install pkg@version ignores the current one anyway
	cmd.Env = append(os.Environ(),
		"GOMODCACHE="+filepath.Join(tmp, "modcache"),
		"GOBIN="+bin,
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(realCache, "cache", "download")),
		// A pseudo-version of our own is unknown to the checksum database, and go install of a
		// module checks its dependencies there too; they come from this machine's cache, which
		// verified them when they entered it.
		"GOSUMDB=off",
		"GOPRIVATE=", "GONOPROXY=", "GOWORK=off", "GOTOOLCHAIN=local",
		"GOFLAGS=-modcacherw -trimpath")
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install %s@%s: %v\n%s", modulePath, pseudo, err, out)
	}
	t.Logf("go install %s@%s took %s", modulePath, pseudo, time.Since(start).Round(time.Second))
	out, err := exec.CommandContext(ctx, filepath.Join(bin, "workbench"), "version", "--format", "json").CombinedOutput()
	if err != nil {
		t.Fatalf("the installed workbench version: %v\n%s", err, out)
	}
	// The fields of `workbench version --format json` (cmd/workbench's buildFacts).
	var f struct {
		Module, Version, Revision, RevisionFrom string
	}
	if err := json.Unmarshal(out, &f); err != nil {
		t.Fatalf("the installed workbench version --format json: %v\n%s", err, out)
	}
	if f.Module != modulePath || f.Version != pseudo || f.Revision != head[:12] || f.RevisionFrom != "pseudo-version" {
		t.Errorf("the installed workbench says %+v; want module %s, version %s, revision %s from the pseudo-version", f, modulePath, pseudo, head[:12])
	}
}

// writeProxy lays out a GOPROXY file tree that serves one version of the module: HEAD's
// committed files, as git archive gives them (the go command zips a git module the same way).
func writeProxy(ctx context.Context, t *testing.T, proxy, root, version string, secs int64) {
	t.Helper()
	arch, err := exec.CommandContext(ctx, "git", "-C", root, "-c", "core.autocrlf=input", "-c", "core.eol=lf",
		"archive", "--format=zip", "HEAD").Output()
	if err != nil {
		t.Fatalf("git archive HEAD: %v", err)
	}
	zr, err := zip.NewReader(bytes.NewReader(arch), int64(len(arch)))
	if err != nil {
		t.Fatalf("read git archive: %v", err)
	}
	var files []modzip.File
	var gomod []byte
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") {
			continue
		}
		files = append(files, archived{f})
		// git reads the files, not this process, so go test's cache would not see them change:
		// a stat of each makes the cached result depend on the committed files as they are here.
		_, _ = os.Stat(filepath.Join(root, filepath.FromSlash(f.Name)))
		if f.Name == "go.mod" {
			gomod = readZipped(t, f)
		}
	}
	if gomod == nil {
		t.Fatal("HEAD has no go.mod")
	}
	dir := filepath.Join(proxy, filepath.FromSlash(modulePath), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	if err := modzip.Create(&z, module.Version{Path: modulePath, Version: version}, files); err != nil {
		t.Fatalf("HEAD does not make a module zip: %v", err)
	}
	info := fmt.Sprintf(`{"Version":%q,"Time":%q}`, version, time.Unix(secs, 0).UTC().Format(time.RFC3339))
	for name, b := range map[string][]byte{"list": []byte(version + "\n"), version + ".info": []byte(info),
		version + ".mod": gomod, version + ".zip": z.Bytes()} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// archived is a file of git archive's zip as a module zip file.
type archived struct{ f *zip.File }

func (a archived) Path() string                 { return path.Clean(a.f.Name) }
func (a archived) Lstat() (os.FileInfo, error)  { return a.f.FileInfo(), nil }
func (a archived) Open() (io.ReadCloser, error) { return a.f.Open() }

func readZipped(t *testing.T, f *zip.File) []byte {
	t.Helper()
	r, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func gitOut(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

func goOut(ctx context.Context, goBin string, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, goBin, args...).Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// makeWritable lets the test's cleanup remove a module cache left read-only.
func makeWritable(dir string) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o755)
		}
		return nil
	})
}
