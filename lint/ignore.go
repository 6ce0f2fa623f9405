package lint

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tool-workbench/workbench/listing"
)

// Ignore is one entry of an ignore file: findings of Rule (about Tool, at Pointer, when given)
// are suppressed. Reason is required: a suppression nobody can explain is a finding hidden.
type Ignore struct {
	Rule    string `json:"rule"`
	Tool    string `json:"tool,omitempty"`
	Pointer string `json:"pointer,omitempty"`
	Reason  string `json:"reason"`
}

// ParseIgnores reads an ignore file: a JSON array of {"rule", "tool"?, "pointer"?, "reason"}.
// A pointer may use * for the tool index (/tools/*/description) and matches a finding at that
// pointer or below it.
func ParseIgnores(src []byte) ([]Ignore, error) {
	if err := listing.CheckUTF8(src); err != nil {
		return nil, fmt.Errorf("ignore file: %w", err)
	}
	v, err := listing.ParseJSON(src)
	if err != nil {
		return nil, fmt.Errorf("ignore file is not JSON: %w", err)
	}
	if v.Kind != listing.Array {
		return nil, fmt.Errorf(`ignore file must be a JSON array of {"rule": ..., "tool": ..., "pointer": ..., "reason": ...}, got %s`, v.Kind)
	}
	out := make([]Ignore, 0, len(v.Items))
	for i, it := range v.Items {
		if !it.IsObject() {
			return nil, fmt.Errorf("ignore entry %d must be an object, got %s", i, it.Kind)
		}
		var ig Ignore
		for _, m := range it.Fields() {
			if !m.Value.IsString() {
				return nil, fmt.Errorf("ignore entry %d: %q must be a string, got %s", i, m.Key, m.Value.Kind)
			}
			switch m.Key {
			case "rule":
				ig.Rule = m.Value.Str
			case "tool":
				ig.Tool = m.Value.Str
			case "pointer":
				ig.Pointer = m.Value.Str
			case "reason":
				ig.Reason = m.Value.Str
			default:
				return nil, fmt.Errorf("ignore entry %d: unknown key %q (known: rule, tool, pointer, reason)", i, m.Key)
			}
		}
		if ig.Rule == "" {
			return nil, fmt.Errorf("ignore entry %d has no rule: name the rule ID it silences (workbench rules lists them)", i)
		}
		if ig.Rule != "*" && Lookup(ig.Rule) == nil {
			return nil, fmt.Errorf("ignore entry %d: unknown rule %q (workbench rules lists them)", i, ig.Rule)
		}
		if strings.TrimSpace(ig.Reason) == "" {
			return nil, fmt.Errorf("ignore entry %d (%s) has no reason: say why the finding does not apply", i, ig.Rule)
		}
		if ig.Pointer != "" && !strings.HasPrefix(ig.Pointer, "/") {
			return nil, fmt.Errorf("ignore entry %d: pointer %q must start with /", i, ig.Pointer)
		}
		out = append(out, ig)
	}
	return out, nil
}

// Matches reports whether the entry silences f.
func (ig Ignore) Matches(f Finding) bool {
	if ig.Rule != "*" && ig.Rule != f.Rule {
		return false
	}
	if ig.Tool != "" && ig.Tool != f.Tool {
		return false
	}
	if ig.Pointer != "" {
		p, want := f.Pointer, ig.Pointer
		if strings.Contains(want, "/*") {
			p = stripToolIndex(p)
		}
		if p != want && !strings.HasPrefix(p, want+"/") {
			return false
		}
	}
	return true
}

// ApplyIgnores splits findings into those kept and those an entry silences.
func ApplyIgnores(fs []Finding, igs []Ignore) (kept, ignored []Finding) {
	for _, f := range fs {
		hit := false
		for _, ig := range igs {
			if ig.Matches(f) {
				hit = true
				break
			}
		}
		if hit {
			ignored = append(ignored, f)
		} else {
			kept = append(kept, f)
		}
	}
	return kept, ignored
}

// ParseBaseline reads a previous `workbench check --format json` report and returns the keys
// of its findings (see Finding.Key).
func ParseBaseline(src []byte) (map[string]int, error) {
	var r struct {
		Findings *[]Finding `json:"findings"`
	}
	if err := json.Unmarshal(src, &r); err != nil {
		return nil, fmt.Errorf("baseline is not a JSON report: %w (make one with workbench check --format json)", err)
	}
	if r.Findings == nil {
		return nil, fmt.Errorf(`baseline has no "findings" array: make one with workbench check --format json`)
	}
	keys := map[string]int{}
	for _, f := range *r.Findings {
		keys[f.Key()]++
	}
	return keys, nil
}

// NewSince returns the findings that the baseline does not hold (each baseline entry absorbs
// one equal finding, so a second copy of an old finding is new).
func NewSince(fs []Finding, baseline map[string]int) []Finding {
	left := make(map[string]int, len(baseline))
	for k, n := range baseline {
		left[k] = n
	}
	var out []Finding
	for _, f := range fs {
		k := f.Key()
		if left[k] > 0 {
			left[k]--
			continue
		}
		out = append(out, f)
	}
	return out
}
