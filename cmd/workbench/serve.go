package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/lint"
	"github.com/tool-workbench/workbench/web"
)

func init() {
	register(command{
		name:    "serve",
		summary: "run the browser workbench (the default command)",
		usage:   "[--listen ADDR] [--datastar-js PATH]",
		run:     runServe,
	})
}

func runServe(ctx context.Context, e *env, args []string) error {
	c := commands["serve"]
	fs := newFlags(c, e.stderr)
	listen := fs.String("listen", "127.0.0.1:8080", "address to listen on (host:port)")
	dsPath := fs.String("datastar-js", "", "serve this Datastar client file instead of loading v1.0.2 from the CDN")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Sprintf("serve takes no arguments, got %q", pos[0])}
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
	srv, err := web.New(web.Config{Store: web.NewMemoryStore(), Engine: engine, Log: e.log, DatastarJS: ds})
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
	e.log.Info("workbench listening", "url", "http://"+ln.Addr().String(), "datastar", datastarSource(*dsPath))
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
