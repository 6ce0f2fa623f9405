package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strconv"

	"golang.org/x/mod/module"
)

func init() {
	register(command{
		name:    "version",
		summary: "print the version and source revision this binary was built from",
		usage:   "[--format text|json]",
		run:     runVersion,
	})
}

// buildFacts is what a binary can say about its own build. Revision is "" when it cannot
// know (RevisionFrom says why).
type buildFacts struct {
	Module  string `json:"module"`
	Version string `json:"version"`
	// Revision is the commit, or the tag that names it, or "".
	Revision string `json:"revision"`
	// RevisionFrom says where Revision comes from: "vcs" (go build in a checkout stamped it),
	// "pseudo-version" (go install of a commit: its version ends in the commit's prefix),
	// "tag" (go install of a tagged version) or "none".
	RevisionFrom string `json:"revisionFrom"`
	// Time and Modified come from the checkout's VCS stamp only.
	Time     string `json:"time,omitempty"`
	Modified *bool  `json:"modified,omitempty"`
	Go       string `json:"go"`
}

// factsOf reads what info says of the build. Builds differ in what they stamp: go build in a
// git checkout records vcs.revision, vcs.time and vcs.modified; go install module@version
// records the module's version only (module-mode builds carry no VCS stamp), which for a
// commit is a pseudo-version ending in the commit's first 12 hex digits; go build with
// -buildvcs=false, or outside a checkout, records neither and says "(devel)".
func factsOf(info *debug.BuildInfo) buildFacts {
	f := buildFacts{Module: info.Main.Path, Version: info.Main.Version, Go: info.GoVersion, RevisionFrom: "none"}
	if f.Version == "" {
		f.Version = "(devel)"
	}
	if f.Go == "" {
		f.Go = runtime.Version()
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			f.Revision, f.RevisionFrom = s.Value, "vcs"
		case "vcs.time":
			f.Time = s.Value
		case "vcs.modified":
			if b, err := strconv.ParseBool(s.Value); err == nil {
				f.Modified = &b
			}
		}
	}
	if f.RevisionFrom == "vcs" || f.Version == "(devel)" {
		return f
	}
	if module.IsPseudoVersion(f.Version) {
		if rev, err := module.PseudoVersionRev(f.Version); err == nil {
			f.Revision, f.RevisionFrom = rev, "pseudo-version"
		}
		return f
	}
	f.Revision, f.RevisionFrom = f.Version, "tag"
	return f
}

// writeVersion prints f as text or JSON.
func writeVersion(w io.Writer, f buildFacts, format string) error {
	if format == "json" {
		b, err := json.MarshalIndent(f, "", "  ")
		if err != nil {
			return fmt.Errorf("encode version: %w", err)
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	mod := f.Module
	if mod == "" {
		mod = "workbench"
	}
	fmt.Fprintf(w, "%s %s\n", mod, f.Version)
	switch f.RevisionFrom {
	case "vcs":
		fmt.Fprintf(w, "revision: %s\n", f.Revision)
		if f.Time != "" {
			fmt.Fprintf(w, "time: %s\n", f.Time)
		}
		if f.Modified != nil {
			fmt.Fprintf(w, "modified: %t\n", *f.Modified)
		}
	case "pseudo-version":
		fmt.Fprintf(w, "revision: %s (the commit the pseudo-version names)\n", f.Revision)
	case "tag":
		fmt.Fprintf(w, "revision: the commit tagged %s\n", f.Revision)
	default:
		fmt.Fprintln(w, "revision: unknown (built without version control information: go build -buildvcs=false, or outside a git checkout)")
	}
	_, err := fmt.Fprintf(w, "go: %s\n", f.Go)
	return err
}

// readBuildInfo is debug.ReadBuildInfo; tests hand in their own.
var readBuildInfo = debug.ReadBuildInfo

func runVersion(_ context.Context, e *env, args []string) error {
	fs := newFlags(commands["version"], e.stderr)
	format := fs.String("format", "text", "output format: text or json")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Sprintf("version takes no arguments, got %q", pos[0])}
	}
	if *format != "text" && *format != "json" {
		return usageError{fmt.Sprintf("unknown format %q; use text or json", *format)}
	}
	info, ok := readBuildInfo()
	if !ok {
		// Only a binary built without module support lacks build info.
		info = &debug.BuildInfo{}
	}
	return writeVersion(e.stdout, factsOf(info), *format)
}
