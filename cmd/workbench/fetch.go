package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tool-workbench/workbench/internal/termsafe"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/listing/remote"
)

func init() {
	register(command{
		name:    "fetch",
		summary: "fetch a listing from a live MCP server, and compare it with a pinned one",
		usage:   "URL [--header 'K: V']… [--bearer-env NAME] [--transport streamable|sse] [--out FILE] [--compare FILE|approved:WORKSPACE_URL_OR_ID]\n       workbench fetch --stdio [--out FILE] [--compare FILE] -- COMMAND ARGS…",
		run:     runFetch,
	})
}

// fetchOptions are the flags of workbench fetch.
type fetchOptions struct {
	headers   listFlag
	bearerEnv string
	transport string
	timeout   time.Duration
	out       string
	compare   string
	format    string
	stdio     bool
	allow     listFlag
	pin       pinSource
}

func runFetch(ctx context.Context, e *env, args []string) error {
	c := commands["fetch"]
	fs := newFlags(c, e.stderr)
	var o fetchOptions
	fs.Var(&o.headers, "header", "an HTTP header 'Name: value' sent with every request (repeatable)")
	fs.StringVar(&o.bearerEnv, "bearer-env", "", "send the token in environment variable `NAME` as 'Authorization: Bearer …'")
	fs.StringVar(&o.transport, "transport", "streamable", "HTTP transport: streamable (Streamable HTTP) or sse (the older HTTP+SSE)")
	fs.DurationVar(&o.timeout, "timeout", remote.DefaultLimits.Timeout, "give up after this long")
	fs.StringVar(&o.out, "out", "", "write the listing to `FILE` instead of standard output")
	fs.StringVar(&o.compare, "compare", "", "compare with the listing in `FILE` (or approved:WORKSPACE_URL_OR_ID: the workspace's newest approved revision), print what changed, exit 1 if anything did")
	fs.StringVar(&o.pin.db, "db", "", "with --compare approved:ID: "+dbUsage)
	fs.StringVar(&o.pin.tokenEnv, "token-env", "WORKBENCH_TOKEN", "with --compare approved:URL: the environment variable holding a share link's token or the admin token of the workbench")
	fs.StringVar(&o.format, "format", "text", "format of the change report: text or json")
	fs.BoolVar(&o.stdio, "stdio", false, "launch a local server: the command and its arguments follow --")
	fs.Var(&o.allow, "fetch-allow", "also reach this address, range or host, which the policy refuses by default (cloud metadata) (repeatable)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	target, err := o.target(e, pos)
	if err != nil {
		return err
	}
	if o.format != "text" && o.format != "json" {
		return usageError{fmt.Sprintf("--format %q: use text or json", o.format)}
	}
	if o.timeout <= 0 {
		return usageError{"--timeout must be positive, e.g. 30s or 2m"}
	}
	if o.pin.db != "" && !isApprovedPin(o.compare) {
		return usageError{"--db applies to --compare approved:WORKSPACE_ID, whose approved revision is read from that database"}
	}
	// Read the pin first: a missing or broken file is an error before any traffic.
	var pinned *listing.Listing
	pinName := o.compare
	switch {
	case isApprovedPin(o.compare):
		if pinned, pinName, err = loadApprovedPin(ctx, e, strings.TrimPrefix(o.compare, approvedPrefix), o.pin); err != nil {
			return fetchFailed(e, fmt.Errorf("reading --compare %s: %w", o.compare, err))
		}
	case o.compare != "":
		if pinned, err = loadListing(e, o.compare); err != nil {
			return fetchFailed(e, fmt.Errorf("reading --compare %s: %w", o.compare, err))
		}
	}

	// The CLI runs for the person who typed the URL: loopback and private networks are theirs.
	policy := remote.LocalPolicy()
	for _, a := range o.allow {
		if err := policy.Permit(a); err != nil {
			return usageError{"--fetch-allow: " + err.Error()}
		}
	}
	target.Stderr = e.stderr // a stdio server's own logs
	res, err := remote.Fetch(ctx, target, remote.Options{
		Policy:     policy,
		AllowStdio: true,
		Limits:     remote.Limits{Timeout: o.timeout},
	})
	target.Bearer = ""
	if err != nil {
		return fetchFailed(e, err)
	}
	e.log.Debug("fetched", "endpoint", res.Endpoint, "tools", len(res.Listing.Tools), "pages", len(res.Pages),
		"protocol", res.ProtocolVersion)

	doc := append(listing.Marshal(res.Listing.Result(), "  "), '\n')
	if o.out != "" {
		if err := writeFetchOut(o.out, doc); err != nil {
			return fetchFailed(e, err)
		}
	} else if pinned == nil {
		if _, err := e.stdout.Write(doc); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stderr, "fetched %d tools in %d page(s) from %s %s (protocol %s) at %s\n",
		len(res.Listing.Tools), len(res.Pages), strconv.Quote(res.Server.Name), strconv.Quote(res.Server.Version),
		strconv.Quote(res.ProtocolVersion), res.Endpoint)
	if pinned == nil {
		return nil
	}
	d := listing.Compare(pinned, res.Listing)
	if o.format == "json" {
		err = writeFetchReportJSON(e.stdout, pinName, res, d)
	} else {
		err = writeFetchReport(e.stdout, pinName, pinned, res, d)
	}
	if err != nil {
		return err
	}
	if d.Changed() {
		return exitError{1}
	}
	return nil
}

// target builds the remote target from the positional arguments and flags.
func (o *fetchOptions) target(e *env, pos []string) (remote.Target, error) {
	var t remote.Target
	if o.stdio {
		if len(pos) == 0 {
			return t, usageError{"--stdio needs the server's command: workbench fetch --stdio -- COMMAND ARGS…"}
		}
		if len(o.headers) > 0 || o.bearerEnv != "" || o.transport != "streamable" {
			return t, usageError{"--header, --bearer-env and --transport apply to a URL, not to --stdio"}
		}
		return remote.Target{Transport: remote.Stdio, Command: pos}, nil
	}
	switch len(pos) {
	case 0:
		return t, usageError{"fetch needs the server's URL (or --stdio -- COMMAND ARGS…)"}
	case 1:
	default:
		return t, usageError{fmt.Sprintf("fetch takes one URL, got %d arguments; to launch a command use --stdio -- COMMAND ARGS…", len(pos))}
	}
	t.URL = pos[0]
	switch o.transport {
	case "streamable", "sse":
		t.Transport = remote.TransportKind(o.transport)
	default:
		return t, usageError{fmt.Sprintf("--transport %q: use streamable or sse", o.transport)}
	}
	if len(o.headers) > 0 {
		t.Headers = http.Header{}
	}
	for _, h := range o.headers {
		k, v, ok := strings.Cut(h, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return t, usageError{fmt.Sprintf("--header %q: write it as 'Name: value'", h)}
		}
		t.Headers.Add(k, v)
	}
	if o.bearerEnv != "" {
		t.Bearer = strings.TrimSpace(e.getenv(o.bearerEnv))
		if t.Bearer == "" {
			return t, usageError{fmt.Sprintf("--bearer-env %s: the environment variable %s is empty or unset", o.bearerEnv, o.bearerEnv)}
		}
	}
	return t, nil
}

// fetchFailed prints a failed fetch and ends with exit status 2, keeping 1 for "changed".
func fetchFailed(e *env, err error) error {
	fmt.Fprintln(e.stderr, "workbench fetch:", termsafe.Escape(err.Error()))
	return exitError{2}
}

func writeFetchOut(path string, data []byte) error {
	if err := writeFileAtomic(path, data); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

// writeFetchReport prints the change report as text: one line per change, then a tally.
func writeFetchReport(w io.Writer, pinPath string, pinned *listing.Listing, res *remote.Result, d *listing.Diff) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Compared %s (%d tools) with %s (%d tools)\n", pinPath, len(pinned.Tools), res.Endpoint, len(res.Listing.Tools))
	if !d.Changed() {
		b.WriteString("No changes: every tool has the same hash.\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	for _, c := range d.Changes {
		fmt.Fprintf(&b, "  %s\n", c)
	}
	counts := d.Count()
	kinds := make([]string, 0, len(counts))
	for k, n := range counts {
		kinds = append(kinds, fmt.Sprintf("%d %s", n, k))
	}
	sort.Strings(kinds)
	fmt.Fprintf(&b, "%d change(s): %s\n", len(d.Changes), strings.Join(kinds, ", "))
	_, err := io.WriteString(w, b.String())
	return err
}

// fetchReportJSON is the change report for --format json.
type fetchReportJSON struct {
	Changed         bool               `json:"changed"`
	Baseline        string             `json:"baseline"`
	Endpoint        string             `json:"endpoint"`
	Transport       string             `json:"transport"`
	Server          remote.ServerInfo  `json:"server"`
	ProtocolVersion string             `json:"protocolVersion"`
	FetchedAt       time.Time          `json:"fetchedAt"`
	Changes         []listing.Change   `json:"changes"`
	Old             []listing.ToolHash `json:"old"`
	New             []listing.ToolHash `json:"new"`
}

func writeFetchReportJSON(w io.Writer, pinPath string, res *remote.Result, d *listing.Diff) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	err := enc.Encode(fetchReportJSON{
		Changed: d.Changed(), Baseline: pinPath, Endpoint: res.Endpoint, Transport: string(res.Transport),
		Server: res.Server, ProtocolVersion: res.ProtocolVersion, FetchedAt: res.FetchedAt,
		Changes: d.Changes, Old: d.Old, New: d.New,
	})
	if err != nil {
		return fmt.Errorf("writing the change report: %w", err)
	}
	return nil
}
