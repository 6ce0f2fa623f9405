package workspace

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
	"github.com/tool-workbench/workbench/store"
)

// Title makes a workspace title the store accepts from a file or server name.
func Title(name string) string {
	name = strings.Map(displayRune, strings.ToValidUTF8(name, "?"))
	name = strings.TrimSpace(name)
	if name == "" {
		return "Untitled"
	}
	if utf8.RuneCountInString(name) > store.MaxTitle {
		name = string([]rune(name)[:store.MaxTitle-1]) + "…"
	}
	return name
}

// displayRune is r as a one-line display text may hold it (store.CheckText): control characters
// and bidirectional controls become spaces.
func displayRune(r rune) rune {
	if r < 0x20 || r >= 0x7f && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
		return ' '
	}
	return r
}

func tasksJSON(tasks []selection.Task) (json.RawMessage, error) {
	if tasks == nil {
		tasks = []selection.Task{}
	}
	b, err := json.Marshal(tasks)
	if err != nil {
		return nil, fmt.Errorf("encode tasks: %w", err)
	}
	return b, nil
}

// DescribePath names a pointer into the listing for a message: "description of tool 3" for
// /tools/2/description.
func DescribePath(p string) string {
	toks, err := listing.SplitPointer(p)
	if err != nil || len(toks) < 3 {
		return "the tools"
	}
	// People count from 1: "tool 1" is the first (pointers stay 0-based).
	if i, err := strconv.Atoi(toks[1]); err == nil {
		return fmt.Sprintf("%s of tool %d", strings.Join(toks[2:], "."), i+1)
	}
	return fmt.Sprintf("%s of tool %s", strings.Join(toks[2:], "."), toks[1])
}

// describeTaskPath names a pointer into the task file for a message: "task 4", or "the tasks"
// for the whole file.
func describeTaskPath(p string) string {
	toks, err := listing.SplitPointer(p)
	if err != nil || len(toks) == 0 {
		return "the tasks"
	}
	if i, err := strconv.Atoi(toks[0]); err == nil {
		return fmt.Sprintf("task %d", i+1)
	}
	return "the tasks"
}

// taskField is the pointer into the stored task file (an array of tasks) that a task edit's
// key names ("tasks/3/task" → "/3/task"), or "" for a structural task edit.
func taskField(key string) string {
	rest, ok := strings.CutPrefix(key, "tasks/")
	if !ok || rest == "" {
		return ""
	}
	return "/" + rest
}
