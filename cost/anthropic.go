package cost

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
)

// anthropic.json holds Anthropic's published tool-use system prompt sizes, versioned with the
// repository: update it (and its version) when Anthropic's table changes.
//
//go:embed anthropic.json
var anthropicJSON []byte

// AnthropicOverhead is the tool-use system prompt Anthropic adds for one model, in tokens.
type AnthropicOverhead struct {
	Model string `json:"model"`
	Name  string `json:"name"`
	Auto  int    `json:"auto"` // tool_choice auto or none
	Any   int    `json:"any"`  // tool_choice any or tool
}

func (a AnthropicOverhead) tokens(choice string) int {
	if choice == "any" || choice == "tool" {
		return a.Any
	}
	return a.Auto
}

// AnthropicTable is the versioned table of tool-use system prompt sizes.
type AnthropicTable struct {
	Version string              `json:"version"`
	Source  string              `json:"source"`
	Note    string              `json:"note"`
	Default string              `json:"default"`
	Models  []AnthropicOverhead `json:"models"`
}

// Anthropic returns the embedded table.
func Anthropic() AnthropicTable {
	var t AnthropicTable
	if err := json.Unmarshal(anthropicJSON, &t); err != nil {
		// The file is part of the source tree and a test reads it; this cannot happen in a build
		// that passed its tests.
		panic(fmt.Sprintf("cost: embedded anthropic.json: %v", err))
	}
	return t
}

func anthropicFor(model string) (AnthropicOverhead, error) {
	t := Anthropic()
	if model == "" {
		model = t.Default
	}
	var names []string
	for _, m := range t.Models {
		if m.Model == model {
			return m, nil
		}
		names = append(names, m.Model)
	}
	return AnthropicOverhead{}, fmt.Errorf("no tool-use system prompt size for model %q (table of %s): use one of %s", model, t.Version, strings.Join(names, ", "))
}
