package taskformat

import (
	"bytes"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// MCPTest is the name of mcptest's tool-bench spec format.
const MCPTest = "mcptest"

// mtCatalog is the catalog path written where the model has none.
const mtCatalog = "tools.json"

func init() { register(mcptest{}) }

// mcptest is the spec of `mcptest tool-bench run spec.yml --min-drop X`, from mcptest
// (mcptest.sh), the MCP testing tool whose tool-description benchmark measures tool selection:
// each intent is a request and the tools that count as a right pick (several may), and
// declared description mutations measure how far selection drops. Of the several projects
// named mcptest, this is the one about tool selection; the others (josephgec/mcptest,
// alexmelges/mcptest, jacquesbagui/mcptest, pytest-mcp-server) test agents' trajectories or
// servers' contracts, not which tool a request selects.
type mcptest struct{}

func (mcptest) Name() string  { return MCPTest }
func (mcptest) Title() string { return "mcptest tool-bench spec (YAML)" }

// Version: followed the spec as "Tool-description quality benchmark" documents it
// (https://mcptest.sh/docs/tool-description-bench, the stored copy read 2026-12-02): catalog
// (an inline tools/list) or catalog_path, intents (query and gold, the tool names that count
// as a correct pick) and mutations (tool and kind: blank, genericize, truncate, drop_keyword);
// the damage threshold is the command's --min-drop, not part of the file. The project's
// repository was not in the searchable index, so no commit is named.
func (mcptest) Version() string {
	return "mcptest tool-bench spec as documented at https://mcptest.sh/docs/tool-description-bench (read 2026-12-02)"
}

type mtSpec struct {
	Catalog     yaml.Node            `yaml:"catalog,omitempty"`
	CatalogPath string               `yaml:"catalog_path,omitempty"`
	Intents     []mtIntent           `yaml:"intents"`
	Mutations   []yaml.Node          `yaml:"mutations,omitempty"`
	Extra       map[string]yaml.Node `yaml:",inline"`
}

type mtIntent struct {
	Query string               `yaml:"query"`
	Gold  []string             `yaml:"gold"`
	Extra map[string]yaml.Node `yaml:",inline"`
}

// Detect claims a YAML (or JSON) mapping with an intents sequence beside a catalog or
// catalog_path: the tool-bench spec's shape, which no other format has.
func (mcptest) Detect(src []byte) bool {
	if !bytes.Contains(src, []byte("intents")) {
		return false
	}
	var head struct {
		Catalog     yaml.Node `yaml:"catalog"`
		CatalogPath yaml.Node `yaml:"catalog_path"`
		Intents     yaml.Node `yaml:"intents"`
	}
	if decodeYAML(src, &head) != nil || head.Intents.Kind != yaml.SequenceNode {
		return false
	}
	return head.Catalog.Kind != 0 || head.CatalogPath.Kind != 0
}

func (mcptest) Read(src []byte) ([]Case, []Loss, error) {
	var s mtSpec
	if err := decodeYAML(src, &s); err != nil {
		return nil, nil, fmt.Errorf("not a tool-bench spec (catalog, intents, mutations): %w", err)
	}
	if err := checkCount(len(s.Intents), "intents"); err != nil {
		return nil, nil, err
	}
	var losses lossList
	if s.Catalog.Kind != 0 {
		losses.add(-1, "", "catalog", "the spec's tool catalog is a listing, not tasks; dropped it (open it as the workspace's listing instead)")
	}
	if s.CatalogPath != "" && s.CatalogPath != mtCatalog {
		losses.add(-1, "", "catalog_path", "dropped the catalog's path %q (written back as %q)", s.CatalogPath, mtCatalog)
	}
	if len(s.Mutations) > 0 {
		losses.add(-1, "", "mutations", "dropped %d description mutations: the workbench's tasks say what is asked, not how to damage the descriptions", len(s.Mutations))
	}
	for _, k := range sortedKeys(s.Extra) {
		losses.add(-1, "", k, "the tool-bench spec has no such member; dropped it")
	}
	cases := make([]Case, len(s.Intents))
	for i, in := range s.Intents {
		if in.Query == "" {
			return nil, nil, fmt.Errorf("intent %d has no query; each intent needs the request as a string in \"query\"", i+1)
		}
		if len(in.Gold) == 0 {
			return nil, nil, fmt.Errorf("intent %d has no gold tools; list in \"gold\" the tool names that count as a correct pick", i+1)
		}
		c := Case{Query: in.Query, AnyOf: len(in.Gold) > 1}
		for _, g := range in.Gold {
			if g == "" {
				return nil, nil, fmt.Errorf("intent %d names an empty gold tool; write tool names", i+1)
			}
			c.Expect = append(c.Expect, Call{Tool: g})
		}
		for _, k := range sortedKeys(in.Extra) {
			losses.add(i, "", k, "a tool-bench intent has no such member; dropped it")
		}
		cases[i] = c
	}
	return cases, losses, nil
}

// Write writes an intent per case. An intent's gold tools are alternatives, any one of them
// right, and an intent expects some tool: a case expecting several calls keeps the first, and
// a case expecting none is left out.
func (mcptest) Write(cases []Case) ([]byte, []Loss, error) {
	if err := checkWriteCount(len(cases), maxYAMLWrite, "mcptest spec"); err != nil {
		return nil, nil, err
	}
	var losses lossList
	s := mtSpec{CatalogPath: mtCatalog, Intents: []mtIntent{}}
	for i, c := range cases {
		lose := losses.of(i, c)
		if c.None || len(c.Expect) == 0 {
			lose("expect", "a tool-bench intent always has a right tool; the case expects none, so it was left out")
			continue
		}
		gold := toolNamesList(c.Expect)
		if !c.AnyOf && len(gold) > 1 {
			lose("expect", fmt.Sprintf("an intent's gold tools are alternatives; the case expects all of %d calls (%s): kept %s", len(gold), toolNames(c.Expect), gold[0]))
			gold = gold[:1]
		}
		for j, e := range c.Expect {
			if e.Args != nil {
				lose(fmt.Sprintf("expect[%d].args", j), "an intent names tools, not their arguments; dropped the arguments")
			}
		}
		if l := caseLabel(c); l != "" {
			lose("id", fmt.Sprintf("an intent has no id or title; dropped %q", l))
		}
		if len(c.Reject) > 0 {
			lose("reject", fmt.Sprintf("an intent cannot name tools that must not be picked; dropped %v", c.Reject))
		}
		if len(c.Tags) > 0 {
			lose("tags", fmt.Sprintf("an intent has no tags; dropped %v", c.Tags))
		}
		s.Intents = append(s.Intents, mtIntent{Query: c.Query, Gold: gold})
	}
	b, err := marshalYAML(s)
	if err != nil {
		return nil, nil, fmt.Errorf("the tool-bench spec: %w", err)
	}
	if len(cases) > 0 {
		losses = append(losses, Loss{Case: -1, Field: "catalog_path", Message: fmt.Sprintf(
			"the tasks carry no tool catalog; wrote catalog_path %q: point it at the listing's tools/list (the workbench exports it)", mtCatalog)})
	}
	return b, losses, nil
}
