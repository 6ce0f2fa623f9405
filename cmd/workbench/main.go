// Command workbench designs the tools of MCP servers: a browser workbench (serve) and the same
// engine headless (check, cost, fetch, export, run, rules), improve to rewrite descriptions with
// a model and prove the rewrites on held-out tasks, challenge to score a workshop's submitted
// listings, and db to check its database.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"
)

func main() {
	os.Exit(runUntilSignalled(os.Args[1:], os.Stderr, func(ctx context.Context) int {
		return exitCode(run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr), os.Stderr)
	}))
}

// signalGrace is how long a command has to end by itself once SIGINT or SIGTERM cancelled its
// context; then the process exits anyway (work blocked in a read of standard input, say, cannot
// see the context). serve shuts down on its own bounded schedule (open streams, runs saved as
// interrupted) and gets serveGrace.
const (
	signalGrace = 800 * time.Millisecond
	serveGrace  = 10 * time.Second
)

// runUntilSignalled runs body with a context that SIGINT and SIGTERM cancel. After a signal
// the process exits 130 (SIGINT) or 143 (SIGTERM), as shells report a process the signal
// ended, once body returns or its grace has passed, or at once on a second signal.
func runUntilSignalled(args []string, stderr io.Writer, body func(context.Context) int) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	done := make(chan int, 1)
	go func() { done <- body(ctx) }()
	var sig os.Signal
	select {
	case code := <-done:
		return code
	case sig = <-sigs:
	}
	cancel()
	code := 130
	if sig == syscall.SIGTERM {
		code = 143
	}
	grace := signalGrace
	if len(args) == 0 || args[0] == "serve" || strings.HasPrefix(args[0], "-") {
		grace = serveGrace
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
	case <-sigs:
		fmt.Fprintf(stderr, "workbench: stopped by a second %s\n", sig)
	case <-t.C:
		fmt.Fprintf(stderr, "workbench: stopped by %s\n", sig)
	}
	return code
}

// env is what a subcommand may touch of the outside world; tests hand in their own.
type env struct {
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	log    *slog.Logger
}

// command is one subcommand. Each lives in its own file and registers itself in init.
type command struct {
	name    string
	summary string
	usage   string
	run     func(ctx context.Context, e *env, args []string) error
}

var commands = map[string]command{}

func register(c command) { commands[c.name] = c }

// exitError ends the process with a code and no further message (the command printed its own).
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// usageError is a mistake in the command line; the process exits 2 after printing it.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	e := &env{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr,
		log: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: logLevel(getenv)}))}
	name := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	switch name {
	case "help", "-h", "--help":
		printHelp(stdout)
		return nil
	}
	if len(args) > 0 && args[0] == "--version" {
		name, args = "version", args[1:]
	}
	c, ok := commands[name]
	if !ok {
		return usageError{fmt.Sprintf("unknown command %q; run 'workbench help' for the list", name)}
	}
	if name == "serve" {
		return c.run(ctx, e, args) // requests have deadlines of their own
	}
	limit, err := commandTimeout(name, getenv)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, limit, errTimeLimit)
	defer cancel()
	err = c.run(ctx, e, args)
	if err != nil && context.Cause(ctx) == errTimeLimit {
		return usageError{fmt.Sprintf("%s stopped after %s, its time limit (WORKBENCH_TIMEOUT sets another, e.g. 30m)", name, limit)}
	}
	return err
}

var errTimeLimit = errors.New("the command's time limit passed")

// commandTimeout is how long a command may run: WORKBENCH_TIMEOUT, else 10 minutes (a model run
// or an improvement loop, which wait on an endpoint for every sample, 2 hours). Every command
// stops at it, validation, rules and ranking included, so that no input keeps a CI job busy for
// ever.
func commandTimeout(name string, getenv func(string) string) (time.Duration, error) {
	if v := getenv("WORKBENCH_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return 0, usageError{fmt.Sprintf("WORKBENCH_TIMEOUT=%q is not a duration; write one such as 90s or 30m", v)}
		}
		return d, nil
	}
	if name == "run" || name == "improve" {
		return 2 * time.Hour, nil
	}
	return 10 * time.Minute, nil
}

func logLevel(getenv func(string) string) slog.Level {
	var l slog.Level
	v := getenv("WORKBENCH_LOG_LEVEL")
	if v == "" {
		return slog.LevelInfo
	}
	if err := l.UnmarshalText([]byte(v)); err != nil {
		fmt.Fprintf(os.Stderr, "workbench: WORKBENCH_LOG_LEVEL=%q is not a level (debug, info, warn, error); logging at info\n", v)
		return slog.LevelInfo
	}
	return l
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "workbench: design the tools of MCP servers")
	fmt.Fprintln(w, "\nUsage: workbench [COMMAND] [ARGS]   (no command: serve)")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintln(w, "\nCommands:")
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'workbench COMMAND -h' for a command's options.")
}

// exitCode maps the error run returned to the process's exit code, printing what needs saying.
func exitCode(err error, stderr io.Writer) int {
	var ee exitError
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, "workbench:", ue.msg)
		return 2
	default:
		fmt.Fprintln(stderr, "workbench:", err)
		return 1
	}
}
