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
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/listing/remote"
	"github.com/tool-workbench/workbench/web"
)

func init() {
	register(command{
		name:    "serve",
		summary: "run the browser workbench (the default command)",
		usage:   "[--listen ADDR] [--datastar-js PATH] [--fetch-allow ADDR|CIDR|HOST]... [--allow-stdio]",
		run:     runServe,
	})
}

func runServe(ctx context.Context, e *env, args []string) error {
	c := commands["serve"]
	fs := newFlags(c, e.stderr)
	listen := fs.String("listen", "127.0.0.1:8080", "address to listen on (host:port)")
	dsPath := fs.String("datastar-js", "", "serve this Datastar client file instead of loading v1.0.2 from the CDN")
	var allows listFlag
	fs.Var(&allows, "fetch-allow", "let \"Fetch from server\" reach this address, range or host name, which the policy refuses otherwise (repeatable)")
	allowStdio := fs.Bool("allow-stdio", false, "let \"Fetch from server\" launch local commands (stdio); only when listening on loopback")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Sprintf("serve takes no arguments, got %q", pos[0])}
	}
	// Workspaces are shared by their links, so serving anyone but this machine's user needs an
	// auth mode, and there is none yet.
	if !loopbackListen(*listen) {
		return usageError{fmt.Sprintf("--listen %s would serve other machines, which needs an auth mode, and this build has none; listen on loopback (127.0.0.1:8080) and put an authenticating proxy in front if others must reach it", *listen)}
	}
	fetchCfg, err := serveFetchConfig(*listen, allows, *allowStdio, "")
	if err != nil {
		return err
	}
	var ds []byte
	if *dsPath != "" {
		if ds, err = os.ReadFile(*dsPath); err != nil {
			return fmt.Errorf("--datastar-js: %w", err)
		}
	}
	engine, err := analysis.New(analysis.Options{Extended: lint.New(lint.Config{})})
	if err != nil {
		return err
	}
	// The JSON API's check, cost and export endpoints; its workspace endpoints answer 404 until
	// workspaces are kept in a store that both the pages and the API share.
	jsonAPI := api.New(api.Options{Log: e.log})
	srv, err := web.New(web.Config{Store: web.NewMemoryStore(), Engine: engine, Log: e.log, DatastarJS: ds, Fetch: fetchCfg,
		Mount:     func(ec *echo.Echo) { jsonAPI.Register(ec.Group(api.Prefix)) },
		APIErrors: jsonAPI.HTTPErrorHandler})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *listen, err)
	}
	// Requests inherit ctx, so the long-lived SSE streams end when the process is told to stop.
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	e.log.Info("workbench listening", "url", "http://"+ln.Addr().String(), "datastar", datastarSource(*dsPath),
		"fetch_local", fetchCfg.Policy.AllowLoopback, "fetch_allow", len(allows), "allow_stdio", fetchCfg.AllowStdio)
	fmt.Fprintf(e.stdout, "Tool Workbench on http://%s\n", ln.Addr())
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
		return nil
	}
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
// auth mode (authMode is "" until the auth issue adds one; it passes its mode here).
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
