package drafting

import (
	"fmt"
	"strings"

	"github.com/tool-workbench/workbench/analysis"
	"github.com/tool-workbench/workbench/listing"
)

// penalty is what one rule's findings cost one dimension of the offline score, once per rule
// however many findings it has.
type penalty struct {
	dim    string
	points int
}

// offlinePenalties maps the rules whose findings bear on a dimension to the points they cost
// it. Every dimension starts at 5 and keeps at least 1. Rules not in the table (secrets,
// paths, headers, profile name limits) say nothing about how well the text informs a model.
//
//	rule                                 dimension    points
//	description (reference: < 8 words)   purpose      2  (no description at all: purpose and usage 1)
//	                                     usage        1
//	description-starts-example           purpose      1
//	hidden-unicode                       purpose      1
//	reference-input, input-schema        purpose      2 / parameters 3
//	name-generic                         purpose      1  and neighbours 1
//	description-sibling-unnamed          usage        2  and neighbours 1
//	instructions-to-model                usage        2
//	tool-shadowing                       usage        1  and neighbours 2
//	annotations (reference)              behaviour    1
//	annotations-missing                  behaviour    1
//	annotations-assumed-destructive      behaviour    1
//	annotations-contradict               behaviour    2
//	annotations-readonly-writes          behaviour    2
//	annotations-destructive-unmarked     behaviour    2
//	output-schema-missing/-root/-wrapped behaviour    1
//	profile-hint-readwrite, -hints-explicit, -read-write-mixed, -title-missing  behaviour 1
//	params-described (reference)         parameters   2
//	param-undescribed                    parameters   1
//	params-required, params-opaque       parameters   1
//	no-params-closed                     parameters   1
//	param-default-promised               parameters   1
//	description-example-real             parameters   1
//	json-duplicate-key                   parameters   1
//	schema-invalid, -root-object, -ref-external, -required-undeclared, -value-invalid  parameters 2
//	schema-limit, profile-schema-*       parameters   1
//	description-too-long                 brevity      2
//	promotional-wording                  brevity      2
//	description-repeats-schema           brevity      1
//	description-markup                   brevity      1
//	description-whitespace               brevity      1
//	description-docstring-indent         brevity      1
//	near-duplicate                       neighbours   2
//	name-unique, name-case-collision     neighbours   2
//	name-collision-merged                neighbours   1
var offlinePenalties = map[string][]penalty{
	"description":                      {{"purpose", 2}, {"usage", 1}},
	"description-starts-example":       {{"purpose", 1}},
	"hidden-unicode":                   {{"purpose", 1}},
	"reference-input":                  {{"purpose", 2}, {"parameters", 3}},
	"input-schema":                     {{"parameters", 3}},
	"name-generic":                     {{"purpose", 1}, {"neighbours", 1}},
	"description-sibling-unnamed":      {{"usage", 2}, {"neighbours", 1}},
	"instructions-to-model":            {{"usage", 2}},
	"tool-shadowing":                   {{"usage", 1}, {"neighbours", 2}},
	"annotations":                      {{"behaviour", 1}},
	"annotations-missing":              {{"behaviour", 1}},
	"annotations-assumed-destructive":  {{"behaviour", 1}},
	"annotations-contradict":           {{"behaviour", 2}},
	"annotations-readonly-writes":      {{"behaviour", 2}},
	"annotations-destructive-unmarked": {{"behaviour", 2}},
	"output-schema-missing":            {{"behaviour", 1}},
	"output-schema-root":               {{"behaviour", 1}},
	"output-schema-wrapped":            {{"behaviour", 1}},
	"profile-hint-readwrite":           {{"behaviour", 1}},
	"profile-hints-explicit":           {{"behaviour", 1}},
	"profile-read-write-mixed":         {{"behaviour", 1}},
	"profile-title-missing":            {{"behaviour", 1}},
	"params-described":                 {{"parameters", 2}},
	"param-undescribed":                {{"parameters", 1}},
	"params-required":                  {{"parameters", 1}},
	"params-opaque":                    {{"parameters", 1}},
	"no-params-closed":                 {{"parameters", 1}},
	"param-default-promised":           {{"parameters", 1}},
	"description-example-real":         {{"parameters", 1}},
	"json-duplicate-key":               {{"parameters", 1}},
	"schema-invalid":                   {{"parameters", 2}},
	"schema-root-object":               {{"parameters", 2}},
	"schema-ref-external":              {{"parameters", 2}},
	"schema-required-undeclared":       {{"parameters", 2}},
	"schema-value-invalid":             {{"parameters", 2}},
	"schema-limit":                     {{"parameters", 1}},
	"profile-schema-openai":            {{"parameters", 1}},
	"profile-schema-openai-strict":     {{"parameters", 1}},
	"profile-schema-dialect":           {{"parameters", 1}},
	"description-too-long":             {{"brevity", 2}},
	"promotional-wording":              {{"brevity", 2}},
	"description-repeats-schema":       {{"brevity", 1}},
	"description-markup":               {{"brevity", 1}},
	"description-whitespace":           {{"brevity", 1}},
	"description-docstring-indent":     {{"brevity", 1}},
	"near-duplicate":                   {{"neighbours", 2}},
	"name-unique":                      {{"neighbours", 2}},
	"name-case-collision":              {{"neighbours", 2}},
	"name-collision-merged":            {{"neighbours", 1}},
}

// Offline scores one tool from the engine's findings alone: its own, and the listing-wide ones
// of l that name it (the reference's name and near-duplicate checks, computed here; ScoreRubric
// reads them from its analysis instead). l may be nil: the tool's own findings only.
func Offline(tr analysis.ToolResult, l *listing.Listing) ToolRubric {
	var wide []analysis.Finding
	if l != nil {
		wide = toolWide(analysis.ReferenceLinter{}.Listing(l), tr.Name)
	}
	out := offlineScore(tr, wide)
	if l != nil && tr.Index >= 0 && tr.Index < len(l.Tools) {
		out.Hash = listing.ToolHashes(&listing.Listing{Tools: l.Tools[tr.Index : tr.Index+1]})[0].Hash
	}
	return out
}

// toolWide are the listing-wide findings whose message names the tool.
func toolWide(fs []analysis.Finding, name string) []analysis.Finding {
	var out []analysis.Finding
	if strings.TrimSpace(name) == "" {
		return nil
	}
	for _, f := range fs {
		if hasPhrase(f.Message, name) {
			out = append(out, f)
		}
	}
	return out
}

// maxCitedMessage bounds a finding's message in an offline reason, so that a dimension with
// several findings cites each of them within MaxReason.
const maxCitedMessage = 90

// offlineScore is the offline rubric of a tool with its findings and the listing-wide findings
// that name it.
func offlineScore(tr analysis.ToolResult, wide []analysis.Finding) ToolRubric {
	score := map[string]int{}
	why := map[string][]string{}
	seen := map[string]bool{}
	for _, f := range append(append([]analysis.Finding(nil), tr.Findings...), wide...) {
		if seen[f.Rule] {
			continue
		}
		seen[f.Rule] = true
		for _, p := range offlinePenalties[f.Rule] {
			score[p.dim] += p.points
			why[p.dim] = append(why[p.dim], fmt.Sprintf("−%d %s: %s", p.points, f.Rule, clipToRunes(f.Message, maxCitedMessage)))
		}
	}
	out := ToolRubric{Tool: tr.Name, Offline: true}
	for _, d := range Dimensions {
		s := max(1, 5-score[d.ID])
		reason := "no finding bears on this; the findings cannot judge it fully"
		if len(why[d.ID]) > 0 {
			reason = strings.Join(why[d.ID], "; ")
		}
		if tr.DescWords == 0 && (d.ID == "purpose" || d.ID == "usage") {
			s, reason = 1, "the tool has no description"
		}
		out.Dims = append(out.Dims, DimScore{ID: d.ID, Score: s, Reason: clipToRunes(reason, MaxReason)})
	}
	out.Mean = meanOf(out.Dims)
	return out
}
