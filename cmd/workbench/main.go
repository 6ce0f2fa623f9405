// Command workbench designs the tools of MCP servers: a browser workbench (serve) and the same
// engine headless (check, cost, fetch, export, run, rules), and db to check its database.
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
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
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
	c, ok := commands[name]
	if !ok {
		return usageError{fmt.Sprintf("unknown command %q; run 'workbench help' for the list", name)}
	}
	return c.run(ctx, e, args)
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
