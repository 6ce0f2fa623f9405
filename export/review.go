package export

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tool-workbench/workbench/listing"
)

// Finding is one lint finding, as the review needs it. The caller converts its linter's
// findings into these.
type Finding struct {
	Tool     string // the tool's name; "" for a finding about the listing as a whole
	Rule     string // stable rule ID
	Severity string
	Pointer  string // JSON pointer into the listing, such as /tools/3/description
	Message  string
}

// Verdict is the ranker's answer for one task, as the workbench's Tasks tab shows it.
type Verdict struct {
	Task     string
	Expected string // "" when no tool should be called; "a or b" when several are right
	Picked   string // "" when no tool scored
	// Status is the ranker's verdict by its name on the page and in `workbench check`: clear,
	// ambiguous, wrong, rejected, missing, no-words, none or none-risk.
	Status string
}

// Analysis is what the engine says about one listing: the figures the workbench shows for it.
type Analysis struct {
	Findings []Finding
	// Tokens is the listing's total as the engine counts it (the tools and the rendering's
	// frame); ToolTokens each tool's, in listing order.
	Tokens     int
	ToolTokens []int
	// Verdicts are the ranker's, in the task file's order; nil when no task file is ranked.
	Verdicts []Verdict
	// Clear, Ambiguous and Wrong count the verdicts as the engine counts them for the page.
	Clear, Ambiguous, Wrong int
	// Overlap are the overlap map's strongest pairs of OverlapPairs; nil leaves the section out.
	Overlap      []OverlapPair
	OverlapPairs int
	// Damage is the damage test of each tool some task expects, and OrderBias the ranker's
	// order bias; nil without tasks.
	Damage    []ToolDamage
	OrderBias *OrderBias
}

// ReviewOptions name the two listings and bring in the engine the review reports on.
type ReviewOptions struct {
	BaselineName string
	CurrentName  string

	// Analyze is the engine: the review reports the findings, tokens and verdicts it gives for
	// each listing, so that they are the figures the workbench shows. nil leaves them out, with
	// AnalyzeNote (or a default) saying why.
	Analyze     func(*listing.Listing) (*Analysis, error)
	AnalyzeNote string
	// TokenUnit says what Analysis.Tokens counts ("o200k_base tokens of the compact rendering").
	TokenUnit string
	// RankingNote says why no task is ranked, when Analyze gives no verdicts.
	RankingNote string
}

// toolPair is one tool in the baseline, the current listing, or both.
type toolPair struct {
	name    string // current name, or baseline name for a removed tool
	old     *listing.Value
	cur     *listing.Value
	renamed string // the baseline name when the tool was renamed
}

// Review writes a Markdown report of what changed from baseline to current: per tool the
// description as a word diff, schema, annotation and other member changes, the token change and
// the findings fixed and added; and per task the ranking change. User text appears only as
// escaped Markdown text or inside code spans and fences longer than any run of backquotes in it.
func Review(baseline, current *listing.Listing, opts ReviewOptions) ([]byte, error) {
	if baseline == nil || current == nil {
		return nil, fmt.Errorf("review: both a baseline and a current listing are needed")
	}
	bname, cname := opts.BaselineName, opts.CurrentName
	if bname == "" {
		bname = "the baseline"
	}
	if cname == "" {
		cname = "the current listing"
	}
	pairs := pairTools(baseline, current)

	r, err := runEngines(baseline, current, opts, bname, cname)
	if err != nil {
		return nil, err
	}
	var fixedByTool, newByTool map[string][]Finding
	if r.cur != nil {
		fixedByTool, newByTool = diffFindings(r.old.Findings, r.cur.Findings, pairs)
	}

	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Review of %s against %s\n\n", mdText(cname), mdText(bname))

	writeSummary(&b, baseline, current, pairs, opts, r, fixedByTool, newByTool)

	if r.ranked() {
		p("\n## Ranking per task\n\n| Task | Expected | Baseline | Current | Change |\n|---|---|---|---|---|\n")
		for i, c := range r.cur.Verdicts {
			o := r.old.Verdicts[i]
			p("| %s | %s | %s | %s | %s |\n", mdCell(mdText(c.Task)), mdCell(toolOrNone(c.Expected)),
				mdCell(verdictCell(o)), mdCell(verdictCell(c)), rankChange(o, c))
		}
	}
	writeExtras(&b, r)

	if len(fixedByTool[""])+len(newByTool[""]) > 0 {
		p("\n## Listing-wide findings\n\n")
		writeFindings(&b, "Fixed", fixedByTool[""])
		writeFindings(&b, "New", newByTool[""])
	}

	var unchanged []string
	wroteHeading := false
	for _, tp := range pairs {
		key := tp.name
		if tp.old != nil && tp.cur != nil && tp.renamed == "" && listing.Equal(tp.old, tp.cur) &&
			len(fixedByTool[key]) == 0 && len(newByTool[key]) == 0 {
			unchanged = append(unchanged, tp.name)
			continue
		}
		if !wroteHeading {
			p("\n## Tools\n\n")
			wroteHeading = true
		}
		writeTool(&b, tp, r, fixedByTool[key], newByTool[key])
	}
	if len(unchanged) > 0 {
		p("\n## Unchanged tools\n\n")
		for i, n := range unchanged {
			if i > 0 {
				p(", ")
			}
			p("%s", mdCode(n))
		}
		p("\n")
	}
	return b.Bytes(), nil
}

// engineAnswers are the engine's analyses of both listings of a review; both nil without an
// engine.
type engineAnswers struct {
	old, cur *Analysis
	// tokens are the tools' tokens by value, for the tool sections.
	tokens map[*listing.Value]int
}

func (r engineAnswers) ranked() bool { return r.cur != nil && r.cur.Verdicts != nil }

// runEngines analyses both listings with the engine opts gives.
func runEngines(baseline, current *listing.Listing, opts ReviewOptions, bname, cname string) (engineAnswers, error) {
	var r engineAnswers
	if opts.Analyze == nil {
		return r, nil
	}
	var err error
	if r.old, err = opts.Analyze(baseline); err != nil {
		return r, fmt.Errorf("review: analysing %s: %w", bname, err)
	}
	if r.cur, err = opts.Analyze(current); err != nil {
		return r, fmt.Errorf("review: analysing %s: %w", cname, err)
	}
	if len(r.old.Verdicts) != len(r.cur.Verdicts) || (r.old.Verdicts == nil) != (r.cur.Verdicts == nil) {
		return r, fmt.Errorf("review: the engine ranked %d tasks for %s and %d for %s; it must rank the same tasks", len(r.old.Verdicts), bname, len(r.cur.Verdicts), cname)
	}
	r.tokens = map[*listing.Value]int{}
	for _, x := range []struct {
		l *listing.Listing
		a *Analysis
	}{{baseline, r.old}, {current, r.cur}} {
		if len(x.a.ToolTokens) != len(x.l.Tools) {
			return r, fmt.Errorf("review: the engine counted the tokens of %d tools of %d", len(x.a.ToolTokens), len(x.l.Tools))
		}
		for i, t := range x.l.Tools {
			r.tokens[t] = x.a.ToolTokens[i]
		}
	}
	return r, nil
}

// writeSummary writes the review's table of totals and its notes on what was not reported.
func writeSummary(b *bytes.Buffer, baseline, current *listing.Listing, pairs []*toolPair, opts ReviewOptions, r engineAnswers,
	fixedByTool, newByTool map[string][]Finding) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	// Summary.
	var added, removed, renamed, changed, same int
	for _, tp := range pairs {
		switch {
		case tp.old == nil:
			added++
		case tp.cur == nil:
			removed++
		case tp.renamed != "":
			renamed++
		case !listing.Equal(tp.old, tp.cur):
			changed++
		default:
			same++
		}
	}
	p("| | Baseline | Current | Change |\n|---|---:|---:|---|\n")
	p("| Tools | %d | %d | %s |\n", len(baseline.Tools), len(current.Tools), signed(len(current.Tools)-len(baseline.Tools)))
	if o, c := r.old, r.cur; c != nil {
		p("| Tokens | %d | %d | %s |\n", o.Tokens, c.Tokens, signed(c.Tokens-o.Tokens))
		nf, nn := 0, 0
		for _, fs := range fixedByTool {
			nf += len(fs)
		}
		for _, fs := range newByTool {
			nn += len(fs)
		}
		p("| Findings | %d | %d | %d fixed, %d new |\n", len(o.Findings), len(c.Findings), nf, nn)
	}
	if r.ranked() {
		o, c := r.old, r.cur
		for _, row := range []struct {
			label string
			o, c  int
		}{{"clear", o.Clear, c.Clear}, {"ambiguous", o.Ambiguous, c.Ambiguous}, {"wrong", o.Wrong, c.Wrong}} {
			p("| Tasks %s | %d/%d | %d/%d | %s |\n", row.label, row.o, len(o.Verdicts), row.c, len(c.Verdicts), signed(row.c-row.o))
		}
	}
	p("\n- Tools: %d added, %d removed, %d renamed, %d changed, %d unchanged.\n", added, removed, renamed, changed, same)
	switch {
	case r.cur == nil:
		note := opts.AnalyzeNote
		if note == "" {
			note = "no engine was given"
		}
		p("- Tokens, findings and ranking: not reported (%s).\n", mdText(note))
		return
	case opts.TokenUnit != "":
		p("- Tokens are %s.\n", mdText(opts.TokenUnit))
	}
	if !r.ranked() {
		note := opts.RankingNote
		if note == "" {
			note = "no task file was given"
		}
		p("- Ranking: not reported (%s).\n", mdText(note))
		return
	}
	p("- Verdicts are the ranker's, named as on the Tasks tab and by `workbench check`: clear (the expected tool wins clearly), " +
		"ambiguous (it wins, but narrowly), wrong (another tool wins), missing (the expected tool is not in the listing), " +
		"no-words (no word of the task is in any tool), none and none-risk (no tool is expected; none-risk: some tool shares words with the task). " +
		"Tasks clear counts clear and none; ambiguous, ambiguous and none-risk; wrong, the rest.\n")
}

// pairTools matches tools by name, then pairs a removed and an added tool with equal input
// schemas as a rename. Current tools come first, in their order; removed tools follow.
func pairTools(baseline, current *listing.Listing) []*toolPair {
	old := map[string]*listing.Value{}
	for _, t := range baseline.Tools {
		if n := t.Get("name").Str; old[n] == nil {
			old[n] = t
		}
	}
	curNames := map[string]bool{}
	for _, t := range current.Tools {
		curNames[t.Get("name").Str] = true
	}
	var pairs []*toolPair
	matched := map[string]bool{}
	for _, t := range current.Tools {
		n := t.Get("name").Str
		tp := &toolPair{name: n, cur: t}
		if o := old[n]; o != nil && !matched[n] {
			tp.old = o
			matched[n] = true
		}
		pairs = append(pairs, tp)
	}
	for _, tp := range pairs {
		if tp.old != nil {
			continue
		}
		for _, o := range baseline.Tools {
			on := o.Get("name").Str
			if !matched[on] && !curNames[on] && o.Get("inputSchema") != nil &&
				listing.Equal(o.Get("inputSchema"), tp.cur.Get("inputSchema")) {
				tp.old, tp.renamed = o, on
				matched[on] = true
				break
			}
		}
	}
	for _, o := range baseline.Tools {
		if on := o.Get("name").Str; !matched[on] {
			pairs = append(pairs, &toolPair{name: on, old: o})
			matched[on] = true
		}
	}
	return pairs
}

func writeTool(b *bytes.Buffer, tp *toolPair, r engineAnswers, fixed, added []Finding) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	state := "changed"
	switch {
	case tp.old == nil:
		state = "added"
	case tp.cur == nil:
		state = "removed"
	case tp.renamed != "":
		state = "renamed from " + mdCode(tp.renamed)
	case listing.Equal(tp.old, tp.cur):
		state = "unchanged; findings differ"
	}
	p("### %s (%s)\n\n", mdCode(tp.name), state)

	od, cd := tp.old.Get("description"), tp.cur.Get("description")
	switch {
	case tp.cur == nil:
	case tp.old == nil:
		if cd.IsString() {
			p("Description:\n\n%s\n", fenced(cd.Str))
		}
	case !listing.Equal(od, cd):
		if od.IsString() && cd.IsString() {
			p("Description, word by word (`[-removed-]`, `{+added+}`):\n\n%s\n", fenced(renderDiff(WordDiff(od.Str, cd.Str))))
		} else {
			p("Description: %s → %s\n\n", jsonCode(od), jsonCode(cd))
		}
	}
	if tp.old != nil && tp.cur != nil {
		for _, s := range []struct{ key, label string }{{"inputSchema", "Input schema"}, {"outputSchema", "Output schema"}} {
			if lines := schemaChanges(tp.old.Get(s.key), tp.cur.Get(s.key), ""); len(lines) > 0 {
				p("%s:\n\n", s.label)
				for _, l := range lines {
					p("- %s\n", l)
				}
				p("\n")
			}
		}
		if lines := memberChanges(tp.old.Get("annotations"), tp.cur.Get("annotations")); len(lines) > 0 {
			p("Annotations:\n\n")
			for _, l := range lines {
				p("- %s\n", l)
			}
			p("\n")
		}
		var others []string
		for _, k := range unionKeys(tp.old, tp.cur) {
			switch k {
			case "name", "description", "inputSchema", "outputSchema", "annotations":
				continue
			}
			if o, c := tp.old.Get(k), tp.cur.Get(k); !listing.Equal(o, c) {
				others = append(others, fmt.Sprintf("%s: %s → %s", mdCode(k), jsonCode(o), jsonCode(c)))
			}
		}
		if len(others) > 0 {
			p("Other members:\n\n")
			for _, l := range others {
				p("- %s\n", l)
			}
			p("\n")
		}
	} else if tp.cur != nil {
		// Against an empty schema, every property of a new tool reads as added.
		if lines := schemaChanges(listing.NewObject(), tp.cur.Get("inputSchema"), ""); len(lines) > 0 {
			p("Input schema:\n\n")
			for _, l := range lines {
				p("- %s\n", l)
			}
			p("\n")
		}
	}
	if r.cur != nil {
		ot, ct := 0, 0
		if tp.old != nil {
			ot = r.tokens[tp.old]
		}
		if tp.cur != nil {
			ct = r.tokens[tp.cur]
		}
		p("Tokens: %d → %d (%s)\n\n", ot, ct, signed(ct-ot))
	}
	writeFindings(b, "Findings fixed", fixed)
	writeFindings(b, "Findings new", added)
}

func writeFindings(b *bytes.Buffer, label string, fs []Finding) {
	if len(fs) == 0 {
		return
	}
	fmt.Fprintf(b, "%s:\n\n", label)
	for _, f := range fs {
		fmt.Fprintf(b, "- %s (%s", mdCode(f.Rule), mdText(f.Severity))
		if f.Pointer != "" {
			fmt.Fprintf(b, ", %s", mdCode(f.Pointer))
		}
		fmt.Fprintf(b, "): %s\n", mdText(oneLineText(f.Message)))
	}
	b.WriteString("\n")
}

// schemaChanges lists what changed between two JSON schemas: properties added, removed and
// changed (recursively, named by their dotted path), required names, and other keywords.
func schemaChanges(a, c *listing.Value, path string) []string {
	var out []string
	at := func(k string) string {
		if path == "" {
			return mdCode(k)
		}
		return mdCode(path) + " " + mdCode(k)
	}
	if a == nil && c == nil {
		return nil
	}
	if a == nil || c == nil || !a.IsObject() || !c.IsObject() {
		if !listing.Equal(a, c) {
			where := "the schema"
			if path != "" {
				where = mdCode(path)
			}
			out = append(out, fmt.Sprintf("%s: %s → %s", where, jsonCode(a), jsonCode(c)))
		}
		return out
	}
	ap, cp := a.Get("properties"), c.Get("properties")
	for _, k := range unionKeys(ap, cp) {
		o, n := ap.Get(k), cp.Get(k)
		sub := k
		if path != "" {
			sub = path + "." + k
		}
		switch {
		case o == nil:
			out = append(out, fmt.Sprintf("added property %s%s", mdCode(sub), typeNote(n)))
		case n == nil:
			out = append(out, fmt.Sprintf("removed property %s%s", mdCode(sub), typeNote(o)))
		case !listing.Equal(o, n):
			if o.IsObject() && n.IsObject() {
				out = append(out, schemaChanges(o, n, sub)...)
			} else {
				out = append(out, fmt.Sprintf("property %s: %s → %s", mdCode(sub), jsonCode(o), jsonCode(n)))
			}
		}
	}
	if (ap != nil || cp != nil) && !ap.IsObject() && !cp.IsObject() && !listing.Equal(ap, cp) {
		out = append(out, fmt.Sprintf("%s: %s → %s", at("properties"), jsonCode(ap), jsonCode(cp)))
	}
	ar, cr := stringSet(a.Get("required")), stringSet(c.Get("required"))
	var plus, minus []string
	for _, s := range cr {
		if !slices.Contains(ar, s) {
			plus = append(plus, mdCode(s))
		}
	}
	for _, s := range ar {
		if !slices.Contains(cr, s) {
			minus = append(minus, mdCode(s))
		}
	}
	if len(plus) > 0 {
		out = append(out, fmt.Sprintf("now required%s: %s", inPath(path), strings.Join(plus, ", ")))
	}
	if len(minus) > 0 {
		out = append(out, fmt.Sprintf("no longer required%s: %s", inPath(path), strings.Join(minus, ", ")))
	}
	for _, k := range unionKeys(a, c) {
		if k == "properties" || k == "required" {
			continue
		}
		o, n := a.Get(k), c.Get(k)
		if listing.Equal(o, n) {
			continue
		}
		if k == "description" && o.IsString() && n.IsString() {
			out = append(out, fmt.Sprintf("%s: %s", at(k), mdCode(renderDiff(WordDiff(o.Str, n.Str)))))
			continue
		}
		out = append(out, fmt.Sprintf("%s: %s → %s", at(k), jsonCode(o), jsonCode(n)))
	}
	return out
}

func inPath(path string) string {
	if path == "" {
		return ""
	}
	return " in " + mdCode(path)
}

// memberChanges lists the members of two objects (annotations) that differ.
func memberChanges(a, c *listing.Value) []string {
	var out []string
	if a != nil && !a.IsObject() || c != nil && !c.IsObject() {
		if !listing.Equal(a, c) {
			out = append(out, fmt.Sprintf("%s → %s", jsonCode(a), jsonCode(c)))
		}
		return out
	}
	for _, k := range unionKeys(a, c) {
		if o, n := a.Get(k), c.Get(k); !listing.Equal(o, n) {
			out = append(out, fmt.Sprintf("%s: %s → %s", mdCode(k), jsonCode(o), jsonCode(n)))
		}
	}
	return out
}

// unionKeys returns the keys of c in order, then the keys only a has.
func unionKeys(a, c *listing.Value) []string {
	var keys []string
	for _, m := range c.Fields() {
		keys = append(keys, m.Key)
	}
	for _, m := range a.Fields() {
		if !slices.Contains(keys, m.Key) {
			keys = append(keys, m.Key)
		}
	}
	return keys
}

func stringSet(v *listing.Value) []string {
	if v == nil || v.Kind != listing.Array {
		return nil
	}
	var out []string
	for _, it := range v.Items {
		if it.IsString() {
			out = append(out, it.Str)
		}
	}
	return out
}

func typeNote(v *listing.Value) string {
	if t := v.Get("type"); t != nil {
		return " (" + jsonCode(t) + ")"
	}
	return ""
}

// jsonCode shows a value as compact JSON in a code span, or "unset", shortened when long.
func jsonCode(v *listing.Value) string {
	if v == nil {
		return "unset"
	}
	s := string(listing.Marshal(v, ""))
	if r := []rune(s); len(r) > 80 {
		s = string(r[:77]) + "…"
	}
	return mdCode(s)
}

// diffFindings matches findings by tool (following renames), rule and location within the
// tool, and returns per current tool name the findings fixed and the findings new.
func diffFindings(old, cur []Finding, pairs []*toolPair) (fixed, added map[string][]Finding) {
	rename := map[string]string{}
	for _, tp := range pairs {
		if tp.renamed != "" {
			rename[tp.renamed] = tp.name
		}
	}
	key := func(f Finding, tool string) string {
		loc := toolPointer.ReplaceAllString(f.Pointer, "")
		if loc == "" {
			loc = f.Message
		}
		return tool + "\x00" + f.Rule + "\x00" + loc
	}
	count := map[string]int{}
	for _, f := range cur {
		count[key(f, f.Tool)]++
	}
	fixed, added = map[string][]Finding{}, map[string][]Finding{}
	for _, f := range old {
		tool := f.Tool
		if n, ok := rename[tool]; ok {
			tool = n
		}
		if k := key(f, tool); count[k] > 0 {
			count[k]--
		} else {
			fixed[tool] = append(fixed[tool], f)
		}
	}
	oldCount := map[string]int{}
	for _, f := range old {
		tool := f.Tool
		if n, ok := rename[tool]; ok {
			tool = n
		}
		oldCount[key(f, tool)]++
	}
	for _, f := range cur {
		if k := key(f, f.Tool); oldCount[k] > 0 {
			oldCount[k]--
		} else {
			added[f.Tool] = append(added[f.Tool], f)
		}
	}
	return fixed, added
}

// toolPointer is the /tools/N prefix of a finding's pointer, which moves when tools move.
var toolPointer = regexp.MustCompile(`^/tools/[0-9]+`)

// verdictCell is a verdict as the Tasks tab shows it: its status, and the tool that scored
// highest when one scored.
func verdictCell(v Verdict) string {
	if v.Picked == "" {
		return v.Status
	}
	return v.Status + ", picks " + mdCode(v.Picked)
}

func toolOrNone(name string) string {
	if name == "" {
		return "(none)"
	}
	return mdCode(name)
}

// rankChange says how a task's verdict moved: better or worse by the page's order of verdicts
// (clear, then ambiguous, then the wrong ones), or the same.
func rankChange(o, c Verdict) string {
	ro, rc := verdictRank(o.Status), verdictRank(c.Status)
	switch {
	case rc < ro:
		return "better: " + o.Status + " → " + c.Status
	case rc > ro:
		return "**worse**: " + o.Status + " → " + c.Status
	case o.Status != c.Status:
		return o.Status + " → " + c.Status
	case o.Picked != c.Picked:
		return "same, other pick"
	}
	return "same"
}

// verdictRank orders verdicts as the engine counts them: clear, ambiguous, wrong.
func verdictRank(status string) int {
	switch status {
	case "clear", "none":
		return 0
	case "ambiguous", "none-risk":
		return 1
	}
	return 2
}

func signed(n int) string {
	switch {
	case n > 0:
		return "+" + strconv.Itoa(n)
	case n < 0:
		return "−" + strconv.Itoa(-n)
	}
	return "0"
}

// mdSpecial are the characters that could start Markdown or HTML syntax inside running text.
var mdSpecial = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`, `[`, `\[`, `]`, `\]`, `<`, `\<`, `>`, `\>`,
	`|`, `\|`, `~`, `\~`, `&`, `\&`, `#`, `\#`, "\n", " ", "\r", " ")

// mdText escapes user text for running Markdown text, on one line.
func mdText(s string) string { return mdSpecial.Replace(visible(s)) }

// mdCode puts s in a code span whose fence is longer than any run of backquotes in s.
func mdCode(s string) string {
	s = visible(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s))
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if s == "" || strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mdCell makes text safe inside a table cell: a pipe would end the cell, even in a code span.
func mdCell(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '|' && (i == 0 || s[i-1] != '\\') {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// fenced puts multi-line text in a fenced code block whose fence is longer than any run of
// backquotes in it, so that nothing in the text can end the block.
func fenced(s string) string {
	fence := strings.Repeat("`", max(3, longestRun(s, '`')+1))
	s = visible(strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(s))
	return fence + "text\n" + s + "\n" + fence + "\n"
}

// visible writes invisible and direction-changing characters (other than line breaks and tabs)
// as \uXXXX, so that a reviewer sees every character a model would.
func visible(s string) string {
	clean := true
	for _, r := range s {
		if r != ' ' && r != '\n' && r != '\t' && !strconv.IsPrint(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r == ' ' || r == '\n' || r == '\t' || strconv.IsPrint(r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRuneToASCII(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

func oneLineText(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
