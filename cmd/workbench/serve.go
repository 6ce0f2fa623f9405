package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/api"
	"github.com/tool-workbench/workbench/cost"
	"github.com/tool-workbench/workbench/drafting"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/listing/remote"
	"github.com/tool-workbench/workbench/review"
	"github.com/tool-workbench/workbench/web"
)

func init() {
	register(command{
		name:    "serve",
		summary: "run the browser workbench (the default command)",
		usage:   "[--listen ADDR] [--db sqlite:PATH|postgres://…] [--auth token|header] [--trusted-proxy ADDR|CIDR]... [--client-ip-header X-Forwarded-For|Forwarded] [--allowed-host HOST[:PORT]]... [--datastar-js PATH] [--fetch-allow ADDR|CIDR|HOST]... [--allow-stdio] [--request-timeout D] [--endpoints FILE] [--cache-dir DIR] [--tokenizer-file NAME=PATH]...",
		run:     runServe,
	})
}

// serveOptions are serve's flags, checked.
type serveOptions struct {
	listen, dsPath, db, endpoints, cacheDir string
	allows, hosts                           listFlag
	allowStdio                              bool
	authMode                                string
	authCfg                                 web.AuthConfig
	reqTimeout                              time.Duration
	// tokFiles are --tokenizer-file's NAME=PATH: the tokenizer.json files the Cost tab and the
	// API offer by NAME.
	tokFiles listFlag
}

func runServe(ctx context.Context, e *env, args []string) error {
	o, err := serveFlags(e, args)
	if err != nil {
		return err
	}
	fetchCfg, err := serveFetchConfig(o.listen, o.allows, o.allowStdio, o.authMode)
	if err != nil {
		return err
	}
	var ds []byte
	if o.dsPath != "" {
		if ds, err = os.ReadFile(o.dsPath); err != nil {
			return fmt.Errorf("--datastar-js: %w", err)
		}
	}
	engine, err := serveEngine()
	if err != nil {
		return err
	}
	toks, err := cost.NewTokenizers(o.tokFiles)
	if err != nil {
		return fmt.Errorf("--tokenizer-file: %w", err)
	}
	// The pages and the JSON API's workspace endpoints share one store.
	// The API obeys the pages' access rules: its hook asks the server, which is built next.
	var srv *web.Server
	st, err := openStore(ctx, o.db, e.getenv, e.log)
	if err != nil {
		return err
	}
	// Closed last: after the HTTP server and the runs have stopped using it.
	defer func() {
		if err := st.Close(); err != nil {
			e.log.Warn("close store", "err", err)
		}
	}()
	// One review service for the pages and the API; its error count is the pages' (the
	// workspace's profile), asked of the server built below.
	// One rubric cache for the pages and the API: a tool scored on either is not scored again.
	rubrics := drafting.NewRubricCache(0)
	reviews := review.New(st, review.Options{Errors: func(ctx context.Context, ws string, l *listing.Listing) (int, error) {
		return srv.ReviewErrors(ctx, ws, l)
	}})
	jsonAPI := api.New(api.Options{Log: e.log, Workspaces: st, Tokenizers: toks, Review: reviews, Access: func(r *http.Request, ws string, write bool) (string, error) {
		return srv.APIAccess(r, ws, write)
	}, Identity: func(r *http.Request, ws string) (review.Author, error) {
		return srv.ReviewIdentity(r, ws)
	}, Models: func(name string) (drafting.Model, string) {
		// The Runs tab's clients, built by the server below: one bound on calls in flight
		// per endpoint for runs, pages and the API together.
		return srv.DraftingModel(name)
	}, DraftGate: func(r *http.Request) (func(), string) {
		// The pages' drafting gate: one bound on the asks in flight for pages and API together,
		// and, as the pages' asks do, an API ask gives back its request slot while it waits.
		return srv.APIDraftGate(r)
	}, Release: func(r *http.Request) {
		srv.ReleaseSlot(r)
	}, Rubrics: rubrics})
	runsCfg, err := serveRunsConfig(ctx, e, o.endpoints, o.cacheDir)
	if err != nil {
		return err
	}
	// The API is mounted into the pages' router, behind its middleware: the Host check, the
	// deadlines and in-flight bound, and the guard's throttles run before the API sees a request.
	srv, err = web.New(web.Config{Runs: runsCfg, Store: st, Engine: engine, Log: e.log, DatastarJS: ds, Fetch: fetchCfg, Auth: o.authCfg,
		AllowedHosts: o.hosts, RequestTimeout: o.reqTimeout, Tokenizers: toks,
		Mount:     func(ec *echo.Echo) { jsonAPI.Register(ec.Group(api.Prefix)) },
		APIErrors: jsonAPI.HTTPErrorHandler, Review: reviews, Rubrics: rubrics})
	if err != nil {
		return err
	}
	defer srv.Close() // before the store closes (deferred calls run last first)
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", o.listen, err)
	}
	e.log.Info("workbench listening", "url", "http://"+ln.Addr().String(), "auth", authName(o.authCfg.Mode), "trusted_proxies", len(o.authCfg.TrustedProxies), "datastar", datastarSource(o.dsPath),
		"fetch_local", fetchCfg.Policy.AllowLoopback, "fetch_allow", len(o.allows), "allow_stdio", fetchCfg.AllowStdio,
		"allowed_hosts", strings.Join(o.hosts, ","), "request_timeout", o.reqTimeout)
	fmt.Fprintf(e.stdout, "Tool Workbench on http://%s\n", ln.Addr())
	return serveUntilDone(ctx, ln, srv)
}

// serveFlags parses and checks serve's flags.
func serveFlags(e *env, args []string) (serveOptions, error) {
	c := commands["serve"]
	fs := newFlags(c, e.stderr)
	var o serveOptions
	fs.StringVar(&o.listen, "listen", "127.0.0.1:8080", "address to listen on (host:port)")
	fs.StringVar(&o.dsPath, "datastar-js", "", "serve this Datastar client file instead of loading v1.0.2 from the CDN")
	fs.Var(&o.allows, "fetch-allow", "let \"Fetch from server\" reach this address, range or host name, which the policy refuses otherwise (repeatable)")
	fs.BoolVar(&o.allowStdio, "allow-stdio", false, "let \"Fetch from server\" launch local commands (stdio); only when listening on loopback")
	db := dbFlag(fs)
	fs.StringVar(&o.endpoints, "endpoints", "", "model endpoints the Runs tab offers, the file 'workbench run --endpoints' reads (default: $WORKBENCH_ENDPOINTS)")
	fs.StringVar(&o.cacheDir, "cache-dir", "", "response cache of model runs (default: $WORKBENCH_CACHE_DIR, else the user cache dir); off disables it")
	fs.StringVar(&o.authMode, "auth", "", "how people sign in, needed to listen beyond loopback: token (a shared admin token, see --auth-token-env) or header (a trusted proxy names them, see --trusted-proxy); empty is local mode")
	tokenEnv := fs.String("auth-token-env", "WORKBENCH_AUTH_TOKEN", "the environment variable that holds the admin token of --auth token (never pass the token itself on the command line)")
	authHeader := fs.String("auth-header", "X-Forwarded-User", "the header in which the proxy of --auth header names the person")
	var proxies listFlag
	fs.Var(&proxies, "trusted-proxy", "an address or CIDR of the authenticating proxy whose --auth-header, X-Forwarded-Proto and --client-ip-header are believed (repeatable; --auth header needs one)")
	clientHeader := fs.String("client-ip-header", "X-Forwarded-For", "where a --trusted-proxy reports the client's address, which the sign-in throttle keys on: X-Forwarded-For or Forwarded")
	fs.Var(&o.hosts, "allowed-host", "a name (with an optional :port) that requests may give in their Host header (repeatable); local mode always answers to loopback names, "+
		"the auth modes answer to any name unless some are given")
	fs.DurationVar(&o.reqTimeout, "request-timeout", web.DefaultRequestTimeout, "the deadline of every request but the live stream")
	fs.Var(&o.tokFiles, "tokenizer-file", "NAME=PATH: offer a Hugging Face tokenizer.json (Qwen3, Llama 3, Mistral Nemo) as tokenizer NAME in the Cost tab and the API (repeatable; loaded at start)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return o, err
	}
	o.db = *db
	if len(pos) > 0 {
		return o, usageError{fmt.Sprintf("serve takes no arguments, got %q", pos[0])}
	}
	if o.authCfg, err = serveAuthConfig(o.listen, o.authMode, *tokenEnv, *authHeader, proxies, e.getenv); err != nil {
		return o, err
	}
	switch {
	case strings.EqualFold(*clientHeader, "X-Forwarded-For"), strings.EqualFold(*clientHeader, "Forwarded"):
		o.authCfg.ClientIPHeader = *clientHeader
	default:
		return o, usageError{fmt.Sprintf("--client-ip-header %q: use X-Forwarded-For or Forwarded, whichever your proxy writes (and overwrites when a client sends it)", *clientHeader)}
	}
	for _, h := range o.hosts {
		if err := web.CheckAllowedHost(h); err != nil {
			return o, usageError{"--allowed-host: " + err.Error()}
		}
	}
	if o.reqTimeout <= 0 {
		return o, usageError{fmt.Sprintf("--request-timeout %s: give a positive duration, such as 60s", o.reqTimeout)}
	}
	if o.authCfg.Mode != web.AuthLocal && len(o.hosts) == 0 {
		e.log.Warn("no --allowed-host: requests naming any host are served; name the server's public host(s) so that DNS-rebinding requests are refused")
	}
	return o, nil
}

// serveEngine is the analysis engine of the pages. The extended rules count tokens as the
// engine does (o200k_base), so that budgets on the page, in the review export and in
// `workbench check` agree.
func serveEngine() (*analysis.Engine, error) {
	tok, err := cost.NewTokenizer("o200k_base")
	if err != nil {
		return nil, err
	}
	return analysis.New(analysis.Options{Tokenizer: tok.Name(), Extended: lint.New(lint.Config{Tokens: tok.Count})})
}

// serveUntilDone serves on ln until the server fails or ctx ends; then it shuts down, waiting
// for the runs in progress to be saved as interrupted.
func serveUntilDone(ctx context.Context, ln net.Listener, srv *web.Server) error {
	// Requests inherit ctx, so the long-lived SSE streams end when the process is told to stop.
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		if !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("serve: %w", err)
		}
		return nil
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		// Open SSE streams end when their requests' contexts do; Shutdown waits for the rest.
		_ = hs.Shutdown(sctx)
		// Runs in progress stopped with ctx; wait until each is saved as interrupted, resumable.
		srv.WaitRuns()
		return nil
	}
}

// serveAuthConfig checks the auth flags. Workspaces are reached by their links, so a server that
// other machines can reach must identify people: listening beyond loopback needs an auth mode.
// The admin token comes from the environment only, and no message ever includes it.
func serveAuthConfig(listen, mode, tokenEnv, header string, proxies []string, getenv func(string) string) (web.AuthConfig, error) {
	var cfg web.AuthConfig
	for _, p := range proxies {
		pfx, err := parsePrefix(p)
		if err != nil {
			return cfg, usageError{"--trusted-proxy: " + err.Error()}
		}
		cfg.TrustedProxies = append(cfg.TrustedProxies, pfx)
	}
	switch mode {
	case "":
		if !loopbackListen(listen) {
			return cfg, usageError{fmt.Sprintf("--listen %s would serve other machines, and no auth mode is set, so anyone who reached it could edit every workspace. "+
				"Either add --auth token (people sign in with an admin token you put in $%s) or --auth header --trusted-proxy ADDR (an authenticating proxy at ADDR names them), "+
				"or listen on loopback (--listen 127.0.0.1:8080)", listen, tokenEnv)}
		}
		if len(proxies) > 0 {
			return cfg, usageError{"--trusted-proxy needs --auth header (or --auth token behind an https proxy)"}
		}
	case "token":
		cfg.Mode = web.AuthToken
		if tokenEnv == "" {
			return cfg, usageError{"--auth-token-env must name an environment variable"}
		}
		cfg.Token = strings.TrimSpace(getenv(tokenEnv))
		switch {
		case cfg.Token == "":
			return cfg, usageError{fmt.Sprintf("--auth token reads the admin token from $%s, which is empty or unset; set it to a long random secret, e.g. export %s=$(openssl rand -hex 32)", tokenEnv, tokenEnv)}
		case len(cfg.Token) < web.MinTokenLength:
			return cfg, usageError{fmt.Sprintf("the admin token in $%s is %d characters; use at least %d random characters, e.g. export %s=$(openssl rand -hex 32)", tokenEnv, len(cfg.Token), web.MinTokenLength, tokenEnv)}
		}
	case "header":
		cfg.Mode = web.AuthHeader
		if len(proxies) == 0 {
			return cfg, usageError{"--auth header needs --trusted-proxy ADDR|CIDR: the address of the proxy whose header is believed (from any other address requests are refused)"}
		}
		if !validHeaderName(header) {
			return cfg, usageError{fmt.Sprintf("--auth-header %q is not a header name (letters, digits and -)", header)}
		}
		cfg.Header = header
	default:
		return cfg, usageError{fmt.Sprintf("--auth %q: use token or header (or leave it out for local mode)", mode)}
	}
	return cfg, nil
}

func authName(m web.AuthMode) string {
	if m == web.AuthLocal {
		return "local"
	}
	return string(m)
}

// parsePrefix reads an address (one host) or a CIDR range.
func parsePrefix(s string) (netip.Prefix, error) {
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return p, fmt.Errorf("%q is not an address or CIDR range (such as 10.0.0.5 or 10.0.0.0/24): %w", s, err)
		}
		return p.Masked(), nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("%q is not an address or CIDR range (such as 10.0.0.5 or 10.0.0.0/24)", s)
	}
	a = a.Unmap()
	return netip.PrefixFrom(a, a.BitLen()), nil
}

func validHeaderName(h string) bool {
	if h == "" || len(h) > 100 {
		return false
	}
	for _, r := range h {
		if !(r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

func datastarSource(path string) string {
	if path == "" {
		return web.DatastarCDN
	}
	return path
}

// serveFetchConfig decides what the server's "Fetch from server" may reach. Local mode (a
// loopback listen address and no auth mode) may reach loopback and private networks; any other
// server gets the strict policy: public addresses only, plus each --fetch-allow. Launching
// commands (--allow-stdio) runs programs as this process's user, so it is refused whenever
// someone other than the local user could reach the page: a non-loopback listen address, or an
// auth mode (authMode is "" in local mode, else "token" or "header").
func serveFetchConfig(listen string, allows []string, allowStdio bool, authMode string) (web.FetchConfig, error) {
	local := loopbackListen(listen) && authMode == ""
	var cfg web.FetchConfig
	if local {
		cfg.Policy = remote.LocalPolicy()
	}
	for _, a := range allows {
		if err := cfg.Policy.Permit(a); err != nil {
			return cfg, usageError{"--fetch-allow: " + err.Error()}
		}
	}
	if allowStdio {
		switch {
		case authMode != "":
			return cfg, usageError{fmt.Sprintf("--allow-stdio cannot be used with an auth mode (%s): the server would launch commands for everyone it serves", authMode)}
		case !local:
			return cfg, usageError{fmt.Sprintf("--allow-stdio needs a loopback --listen address (such as 127.0.0.1:8080), not %s: anyone who can reach the page could launch commands", listen)}
		}
		cfg.AllowStdio = true
	}
	return cfg, nil
}

// loopbackListen reports whether a listen address only accepts connections from this machine.
func loopbackListen(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}
