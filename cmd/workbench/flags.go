package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// newFlags returns a flag set for a subcommand that reports mistakes as usage errors.
func newFlags(c command, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("workbench "+c.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: workbench %s %s\n\n%s\n\nOptions:\n", c.name, c.usage, c.summary)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses flags that may stand before, between or after positional arguments
// (workbench check FILE --tasks T), and returns the positional ones. After "--" everything is
// positional.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, exitError{0}
			}
			return nil, usageError{err.Error()}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}
