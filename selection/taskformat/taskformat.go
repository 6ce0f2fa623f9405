// Package taskformat converts tool-selection test files between the workbench's task file and
// the formats other tools keep them in (MCPJam's evals, promptfoo, mcpchecker, mcptest,
// mcp-tef). Every format reads into one model, Case, and writes from it; whatever a side cannot
// carry is returned as a Loss, never dropped silently.
package taskformat

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tool-workbench/workbench/listing"
)

// Call is one expected tool call: the tool's name and, when the test says, the arguments it
// should receive (a subset: every member given must appear in the call with an equal value).
type Call struct {
	Tool string         `json:"tool"`
	Args *listing.Value `json:"args,omitempty"`
}

// Case is one tool-selection test in the model every format reads into and writes from. It is
// the union of what the formats can say; a format that cannot say a part reports a Loss.
type Case struct {
	// ID is a stable label, unique in the file when given (a test's id or machine name).
	ID string `json:"id,omitempty"`
	// Title is a human name for the test where the format keeps one apart from its id.
	Title string `json:"title,omitempty"`
	// Query is what the user asks.
	Query string `json:"query"`
	// Expect holds the expected calls. With AnyOf, any one of them is right; without it, the
	// test expects all of them (in this order where the format says order matters).
	Expect []Call `json:"expect,omitempty"`
	AnyOf  bool   `json:"anyOf,omitempty"`
	// None says no tool should be called. Expect is then empty.
	None bool `json:"none,omitempty"`
	// Reject names tools that must not be called.
	Reject []string `json:"reject,omitempty"`
	Tags   []string `json:"tags,omitempty"`
}

// Loss is something a conversion could not carry: a field of the source that the model has no
// place for (on Read), or a part of a Case the target cannot say (on Write).
type Loss struct {
	// Case is the 0-based index of the case it concerns, or -1 for the file as a whole.
	Case int `json:"case"`
	// ID is the case's id or title, when it has one, so a person can find it.
	ID string `json:"id,omitempty"`
	// Field names what was lost in the side's own terms ("expectedToolCalls[1]", "model").
	Field string `json:"field"`
	// Message says what happened to it, in a sentence ("kept the first of 2 expected tools").
	Message string `json:"message"`
}

func (l Loss) String() string {
	where := "the file"
	if l.Case >= 0 {
		where = fmt.Sprintf("case %d", l.Case+1)
		if l.ID != "" {
			where += fmt.Sprintf(" (%s)", l.ID)
		}
	}
	return fmt.Sprintf("%s: %s: %s", where, l.Field, l.Message)
}

// Format reads and writes one tool's test file format.
type Format interface {
	// Name is the format's flag value: "workbench", "mcpjam", "promptfoo", "mcpchecker",
	// "mcptest", "mcptef".
	Name() string
	// Title names the tool and the file for people ("MCPJam evals tests.json").
	Title() string
	// Version says which version of the format this follows and where it is defined (a
	// release, an apiVersion, a commit), so a reader can check it.
	Version() string
	// Read parses a file of this format. Its error says what is wrong and what would work, with
	// a place (line, JSON pointer) where there is one.
	Read(src []byte) ([]Case, []Loss, error)
	// Write writes cases in this format, reporting what it cannot carry.
	Write(cases []Case) ([]byte, []Loss, error)
	// Detect tells whether src has this format's shape. It must be cheap and must not claim a
	// file another format could also hold: Detect answers only where the shape is
	// unambiguous, and DetectFormat refuses a file that two formats claim.
	Detect(src []byte) bool
}

// MaxSource bounds a file any format reads, as the listing bound does.
const MaxSource = 16 << 20

var registry = map[string]Format{}

// register adds a format; each format's file calls it from init.
func register(f Format) {
	if _, dup := registry[f.Name()]; dup {
		panic("taskformat: two formats named " + f.Name())
	}
	registry[f.Name()] = f
}

// Names lists the formats' names, sorted, "workbench" first.
func Names() []string {
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool {
		if (out[i] == Workbench) != (out[j] == Workbench) {
			return out[i] == Workbench
		}
		return out[i] < out[j]
	})
	return out
}

// Lookup returns the named format, or an error listing the known ones.
func Lookup(name string) (Format, error) {
	if f, ok := registry[strings.ToLower(strings.TrimSpace(name))]; ok {
		return f, nil
	}
	return nil, fmt.Errorf("no task file format is named %q; the formats are %s", name, strings.Join(Names(), ", "))
}

// ErrUnknownShape is DetectFormat's error when no format claims a file.
var ErrUnknownShape = errors.New("the file's shape matches none of the task file formats")

// DetectFormat returns the one format whose shape src has. It refuses a file that no format or
// several formats claim, naming them, so that a person says which with --from.
func DetectFormat(src []byte) (Format, error) {
	if len(src) > MaxSource {
		return nil, fmt.Errorf("the file is %d bytes; task files are read up to %d", len(src), MaxSource)
	}
	var hits []string
	for _, n := range Names() {
		if registry[n].Detect(src) {
			hits = append(hits, n)
		}
	}
	switch len(hits) {
	case 1:
		return registry[hits[0]], nil
	case 0:
		return nil, fmt.Errorf("%w; say which it is (--from %s)", ErrUnknownShape, strings.Join(Names(), "|"))
	default:
		return nil, fmt.Errorf("the file's shape fits %s alike; say which it is with --from", strings.Join(hits, " and "))
	}
}

// Result is a conversion: the written file and everything either side could not carry.
type Result struct {
	From, To string
	Cases    int
	Out      []byte
	Losses   []Loss
}

// Convert reads src as from (detected by shape when from is "") and writes it as to.
func Convert(src []byte, from, to string) (Result, error) {
	if len(src) > MaxSource {
		return Result{}, fmt.Errorf("the file is %d bytes; task files are read up to %d", len(src), MaxSource)
	}
	var in Format
	var err error
	if from == "" {
		in, err = DetectFormat(src)
	} else {
		in, err = Lookup(from)
	}
	if err != nil {
		return Result{}, err
	}
	out, err := Lookup(to)
	if err != nil {
		return Result{}, err
	}
	cases, readLoss, err := ReadCases(in, src)
	if err != nil {
		return Result{}, err
	}
	b, writeLoss, err := out.Write(cases)
	if err != nil {
		return Result{}, fmt.Errorf("writing it as %s: %w", out.Title(), err)
	}
	return Result{From: in.Name(), To: out.Name(), Cases: len(cases), Out: b,
		Losses: slices.Concat(readLoss, writeLoss)}, nil
}

// caseLabel is what a Loss calls a case: its id, else its title.
func caseLabel(c Case) string {
	if c.ID != "" {
		return c.ID
	}
	return c.Title
}

// ReadCases reads src as f. Another tool's file that reads as no test case at all is refused
// rather than converted to an empty task file (an mcpchecker Eval without its Task documents,
// say): importing it would replace a workspace's tasks with nothing. The workbench's own empty
// task file is a task file.
func ReadCases(f Format, src []byte) ([]Case, []Loss, error) {
	cases, losses, err := f.Read(src)
	if err != nil {
		return nil, nil, fmt.Errorf("reading it as %s: %w", f.Title(), err)
	}
	if len(cases) == 0 && f.Name() != Workbench {
		return nil, nil, fmt.Errorf("reading it as %s found no test case to convert (%d other parts of it were not carried); give the file that holds the cases", f.Title(), len(losses))
	}
	return cases, losses, nil
}
