package lint

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/words"
)

func init() {
	register(
		&Rule{ID: "description-too-long", Category: CatDescription, Severity: Warning, Scope: PerTool, Seed: seed000,
			Summary: "a tool description longer than the token budget",
			What:    fmt.Sprintf("Counts the description's tokens (a real tokenizer when the CLI has one, otherwise about four bytes a token; a description over 1 MiB is estimated at four bytes a token) against a budget, %d by default (--max-description-tokens).", DefaultMaxDescriptionTokens),
			Why:     "Every tool's description is in the prompt on every turn. Longer is not automatically better: fully rewritten descriptions raised success by a median 5.85 points but added 67% more steps and made 1 case in 6 worse. Two to four sentences say what the tool does, when to use it instead of its neighbour, what it takes and what it returns.",
			Bad:     `a description of 40 lines: a tutorial, every parameter restated, a changelog`,
			Good:    `"Find orders of one customer by status or date. Use get_order_status when you have an order ID. Returns at most 50 orders, newest first."`},
		&Rule{ID: "description-markup", Category: CatDescription, Severity: Warning, Scope: PerTool, Seed: seed000,
			Summary: "HTML or XML-like tags in a description",
			What:    "Finds HTML tags (<b>, <br/>, <a href=…>) and paired XML-like tags (<note>…</note>) in the tool's and its parameters' descriptions. Placeholders such as <owner>/<repo> are not tags and are not reported; <IMPORTANT>-style blocks are reported by instructions-to-model.",
			Why:     "The model reads the description as written: markup costs tokens, carries no meaning for it, and tags are the usual wrapper of injected instructions, so reviewers and scanners treat them with suspicion.",
			Bad:     `"description": "<p>Search issues.</p><br/><b>Note:</b> results are paged."`,
			Good:    `"description": "Search issues. Results come 30 per page; pass page for more."`},
		&Rule{ID: "description-starts-example", Category: CatDescription, Severity: Warning, Scope: PerTool, Seed: seed001,
			Summary: "a description that opens with an example instead of the tool's purpose",
			What:    "The tool's description starts with \"Example:\", \"e.g.\", \"For example\" or \"Usage:\".",
			Why:     "The description is a job description for someone starting today: it first says what the tool is for. A model skimming many tools weighs the opening most; an example first hides the purpose.",
			Bad:     `"description": "Example: search_leads(status=\"won\"). Searches leads."`,
			Good:    `"description": "Search leads by company, owner or status. For example, status \"won\" lists closed deals."`},
		&Rule{ID: "description-whitespace", Category: CatDescription, Severity: Info, Scope: PerTool, Seed: seed000,
			Summary: "leading or trailing whitespace or newlines in a description or title",
			What:    "Reports descriptions and titles (of the tool and of its parameters) that start or end with spaces, tabs or newlines.",
			Why:     "The SDK passes text through as written, so stray whitespace reaches the model as tokens and shows that the text was not reviewed as the model sees it.",
			Bad:     `"description": "Look up one order.\n\n    "`,
			Good:    `"description": "Look up one order."`},
		&Rule{ID: "description-docstring-indent", Category: CatDescription, Severity: Warning, Scope: PerTool, Seed: seed000,
			Summary: "a multi-line description indented like a source-code docstring",
			What:    "A description whose continuation lines all carry the same indentation of four or more spaces (or tabs): a docstring passed through with its source indentation.",
			Why:     "In the Python SDK a tool's description is its docstring, passed through as written, so a docstring over several lines sends its line breaks and indentation to the model. The seed's revised descriptions were passed as description= and dropped them.",
			Bad:     "\"description\": \"Quote a refund.\\n\\n        Call this first; it checks the order itself.\\n        Returns a quote_id valid for 15 minutes.\"",
			Good:    `"description": "Quote a refund. Call this first; it checks the order itself. Returns a quote_id valid for 15 minutes."`},
		&Rule{ID: "description-example-real", Category: CatDescription, Severity: Warning, Scope: PerTool, Seed: seed000 + ", \"Example values the model sends as real ones\"",
			Summary: "an example value that looks like a real identifier",
			What:    "Finds example values in descriptions (after \"e.g.\", \"for example\", \"such as\", \"like\", \"example:\") and in examples keywords that look like live identifiers: order or ticket numbers, SKUs, IDs with digits. Obvious placeholders (123, 0000, 12345, XXX, values containing example, foo, test) are not reported.",
			Why:     "In the seed's recording the model sent the example SKU from the sku parameter's description as if the customer had written it, and KG-1031 was a real product. Choose examples that cannot be real, such as IDs outside the range in use.",
			Bad:     `"sku": {"type": "string", "description": "Product SKU, for example KG-1031."}`,
			Good:    `"sku": {"type": "string", "pattern": "^KG-\\d{4}$", "description": "Product SKU, for example KG-0000 (the form only; take the SKU from the order)."}`},
		&Rule{ID: "description-repeats-schema", Category: CatDescription, Severity: Info, Scope: PerTool, Seed: seed000,
			Summary: "a parameter description that repeats what the schema already says",
			What:    "A parameter description that lists every value of its enum, names its own JSON type in parentheses or as \"Type: …\", or states the same default the schema declares.",
			Why:     "Most of a listing's cost is in the schemas, and the model sees the schema too: spend the tokens on the sentence that separates two tools, and cut description text that repeats the schema.",
			Bad:     `"status": {"type": "string", "enum": ["open", "closed", "merged"], "description": "(string) One of: open, closed, merged."}`,
			Good:    `"status": {"type": "string", "enum": ["open", "closed", "merged"], "description": "Only pull requests in this state."}`},
		&Rule{ID: "description-sibling-unnamed", Category: CatDescription, Severity: Warning, Scope: ListingWide, Seed: seed002 + "; " + seed003,
			Summary: "two near-duplicate tools, and neither description names the other",
			What:    "For each pair of tools that nothing tells apart (the same distinguishing words in name and description, verbs such as get and fetch folded together) and whose descriptions share half of their content words or more (the reference's near-duplicate measure), reports the pair when neither description mentions the other tool's name. Pairs that differ in what they act on (create_branch, create_issue) are not reported.",
			Why:     "The hard problem is helping the model choose between two tools that both sound plausible. Naming the sibling inside the description, and saying when to use it instead, is the change that cut wrong-tool calls most; the seed's revision sent refund questions from get_order_status to quote_refund and took 5 of 8 to 8 of 8.",
			Bad:     "get_data: \"Get ticket data by id.\"\nfetch_data: \"Fetch ticket data by id.\"",
			Good:    "get_data: \"Get ticket data by id. Use fetch_data for many.\"\nfetch_data: \"Fetch ticket data by id.\""},
	)
	toolChecks = append(toolChecks, checkDescriptionText, checkExamples)
	listingChecks = append(listingChecks, checkSiblings)
}

// contentWords is the reference's content-word set of a text.
func contentWords(s string) map[string]bool { return words.Content(s) }

// textAt is a string of a tool with its pointer relative to the tool.
type textAt struct {
	ptr, s string
	key    string // the member key the string sits under ("description", "title", "default" …)
}

// descriptions returns the tool's description and title, its annotations' title, and every
// description and title in its schemas.
func descriptions(t *listing.Value) []textAt {
	var out []textAt
	for _, k := range []string{"description", "title"} {
		if v := t.Get(k); v.IsString() {
			out = append(out, textAt{"/" + k, v.Str, k})
		}
	}
	if v := t.Get("annotations").Get("title"); v.IsString() {
		out = append(out, textAt{"/annotations/title", v.Str, "title"})
	}
	for _, which := range []string{"inputSchema", "outputSchema"} {
		eachSubschema(t.Get(which), "/"+which, func(s *listing.Value, p *path) {
			for _, k := range []string{"description", "title"} {
				if v := s.Get(k); v.IsString() {
					out = append(out, textAt{p.String() + "/" + k, v.Str, k})
				}
			}
		})
	}
	return out
}

var (
	htmlTags   = set("a abbr b blockquote br code dd div dl dt em h1 h2 h3 h4 h5 h6 hr i img li ol p pre s script small span strong style sub sup table tbody td th thead tr u ul details summary iframe")
	tagRe      = regexp.MustCompile(`<(/?)([A-Za-z][A-Za-z0-9_-]*)(\s[^<>]*)?(/?)>`)
	startsEx   = regexp.MustCompile(`(?i)^\s*(example\s*:|examples\s*:|e\.g\.|eg:|for example|usage\s*:)`)
	typeRepeat = regexp.MustCompile(`(?i)\((string|integer|number|boolean|array|object)\)|\btype\s*:\s*(string|integer|number|boolean|array|object)\b`)
)

// tags returns the markup tags in s: HTML tag names, and XML-like names that also close. It finds
// the matches of tagRe with tagAt, in two passes that keep no match: a description may hold
// megabytes of tags, and the expression's submatches took a slice of strings each.
func tags(s string) []string {
	if !strings.Contains(s, "<") {
		return nil
	}
	each := func(f func(closing bool, name string, self bool)) {
		for j := strings.IndexByte(s, '<'); j >= 0; {
			end, closing, name, self := tagAt(s, j)
			if end > 0 {
				f(closing, name, self)
			}
			next := strings.IndexByte(s[j+1:], '<')
			if next < 0 {
				break
			}
			j += 1 + next
		}
	}
	closes := map[string]bool{}
	each(func(closing bool, name string, _ bool) {
		if closing {
			closes[strings.ToLower(name)] = true
		}
	})
	var out []string
	seen := map[string]bool{}
	each(func(_ bool, name string, self bool) {
		n := strings.ToLower(name)
		if seen[n] || injectionTags[n] {
			return
		}
		if htmlTags[n] || closes[n] || self {
			seen[n] = true
			out = append(out, "<"+name+">")
		}
	})
	return out
}

// tagAt matches tagRe, <(/?)([A-Za-z][A-Za-z0-9_-]*)(\s[^<>]*)?(/?)>, at s[j] == '<' as the
// expression's leftmost-first search does: it returns the end of the match (or -1), whether the
// tag closes (</b>), its name, and whether it closes itself (<note/>; the attributes' greedy
// [^<>]* takes a "/" before ">", as in <br />).
func tagAt(s string, j int) (end int, closing bool, name string, self bool) {
	k := j + 1
	if k < len(s) && s[k] == '/' {
		closing = true
		k++
	}
	if k >= len(s) || !isASCIILetter(s[k]) {
		return -1, false, "", false
	}
	n := k + 1
	for n < len(s) && (isASCIILetter(s[n]) || s[n] >= '0' && s[n] <= '9' || s[n] == '_' || s[n] == '-') {
		n++
	}
	name = s[k:n]
	switch {
	case n < len(s) && reSpace(s[n]):
		m := n + 1
		for m < len(s) && s[m] != '<' && s[m] != '>' {
			m++
		}
		if m < len(s) && s[m] == '>' {
			return m + 1, closing, name, false
		}
	case n+1 < len(s) && s[n] == '/' && s[n+1] == '>':
		return n + 2, closing, name, true
	case n < len(s) && s[n] == '>':
		return n + 1, closing, name, false
	}
	return -1, false, "", false
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// listed joins at most shownItems items, and says how many more there are: a message repeats
// what it found, and a text made of thousands of findings would repeat them all.
func listed(items []string) string {
	if len(items) <= shownItems {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:shownItems], ", "), len(items)-shownItems)
}

const shownItems = 10

func checkDescriptionText(c *toolCtx) {
	desc := c.tool.Get("description")
	if desc.IsString() {
		d := desc.Str
		if n, estimated := c.countTokens(d); n > c.cfg.MaxDescriptionTokens {
			size := fmt.Sprintf("%d tokens", n)
			if estimated {
				size = fmt.Sprintf("%d bytes, about %d tokens (too long to count: estimated at four bytes a token)", len(d), n)
			}
			c.report("description-too-long", "/description", fmt.Sprintf("the description is %s, over the budget of %d: keep what the tool does, when to use it instead of its neighbour, its inputs and its result", size, c.cfg.MaxDescriptionTokens))
		}
		if startsEx.MatchString(d) {
			c.report("description-starts-example", "/description", "the description opens with an example; open with what the tool does and when to use it")
		}
		if ind := docstringIndent(d); ind != "" {
			c.report("description-docstring-indent", "/description", fmt.Sprintf("every continuation line is indented by %s, as in a source docstring: the model receives the indentation; pass the text without it", ind))
		}
	}
	for _, t := range c.descriptions() {
		if ts := tags(t.s); len(ts) > 0 {
			for i := range ts {
				ts[i] = clip(ts[i])
			}
			c.report("description-markup", t.ptr, fmt.Sprintf("markup in the text: %s; write plain text", listed(ts)))
		}
		if t.s != "" && (strings.TrimSpace(t.s) != t.s) {
			where := "ends"
			if strings.TrimLeft(t.s, " \t\r\n") != t.s {
				where = "starts"
			}
			c.report("description-whitespace", t.ptr, fmt.Sprintf("the %s %s with whitespace (%s); trim it", t.key, where, visibleWS(t.s, where == "starts")))
		}
	}
}

func visibleWS(s string, lead bool) string {
	var ws string
	if lead {
		ws = s[:len(s)-len(strings.TrimLeft(s, " \t\r\n"))]
	} else {
		ws = s[len(strings.TrimRight(s, " \t\r\n")):]
	}
	if len(ws) > 12 {
		return fmt.Sprintf("%d characters", len(ws))
	}
	return wsShown.Replace(ws)
}

// wsShown makes whitespace visible; built once, as a Replacer builds its tables on first use.
var wsShown = strings.NewReplacer("\n", `\n`, "\t", `\t`, "\r", `\r`, " ", "·")

// docstringIndent returns the indentation shared by every continuation line of a multi-line
// text ("8 spaces"), when it is 4 spaces or more or a tab, or "".
func docstringIndent(s string) string {
	s = strings.TrimRight(s, " \t\n")
	first := strings.IndexByte(s, '\n')
	if first < 0 {
		return ""
	}
	common := -1
	tab := false
	n := 0
	// The continuation lines, read in place: a description may have millions of them.
	for rest := s[first+1:]; ; {
		ln, next, more := strings.Cut(rest, "\n")
		if strings.TrimSpace(ln) != "" {
			n++
			ind := len(ln) - len(strings.TrimLeft(ln, " \t"))
			if strings.HasPrefix(ln, "\t") {
				tab = true
			}
			if common < 0 || ind < common {
				common = ind
			}
		}
		if !more {
			break
		}
		rest = next
	}
	if n == 0 || common <= 0 || (common < 4 && !tab) {
		return ""
	}
	if tab {
		return fmt.Sprintf("%d whitespace characters (tabs)", common)
	}
	return fmt.Sprintf("%d spaces", common)
}

var (
	// exampleIntro is the phrase that introduces examples; exampleIntros finds its matches.
	exampleIntro = regexp.MustCompile(`\b(?:e\.g\.|eg\.|for example|for instance|such as|example\s*:|examples\s*:|like)[\s,:]*`)
	exampleToken = regexp.MustCompile("^[\"'\x60]?([A-Za-z0-9][A-Za-z0-9_./#:@-]*[A-Za-z0-9])[\"'\x60]?")
	// An identifier: letters then 3+ digits (KG-1031, ord_123, A4521), or 4+ bare digits (4521).
	// Three bare digits are more often an HTTP status or a count than an ID.
	idLike = regexp.MustCompile(`^[A-Za-z]{1,8}[-_#]?\d{3,}$|^\d{4,}$|^[A-Za-z]{1,8}[-_]\d+$`)
)

// placeholder reports whether an example value is obviously not real.
func placeholder(v string) bool {
	low := strings.ToLower(v)
	for _, w := range []string{"example", "xxx", "foo", "bar", "sample", "test", "dummy", "placeholder", "your", "fake", "abc"} {
		if strings.Contains(low, w) {
			return true
		}
	}
	digits := strings.TrimLeft(low, "abcdefghijklmnopqrstuvwxyz-_#")
	if digits == "" {
		return true
	}
	same := true
	asc := true
	for i := 1; i < len(digits); i++ {
		if digits[i] != digits[0] {
			same = false
		}
		if digits[i] != digits[i-1]+1 {
			asc = false
		}
	}
	return same || asc || (len(digits) >= 4 && strings.Trim(digits[1:], "0") == "") || hexColour.MatchString(low)
}

// realLooking returns the example values in text that look like live identifiers.
func realLooking(text string) []string {
	var out []string
	low := strings.ToLower(text)
	if !containsAny(low, exampleHints) {
		return nil
	}
	if len(low) != len(text) {
		// Lower-casing changed byte offsets (a few non-ASCII letters do): the intro positions
		// found in low would not point into text, so read both in a form where they agree.
		text = low
	}
	for _, m := range exampleIntros(low) {
		rest := text[m[1]:]
		for k := 0; k < 3 && rest != ""; k++ { // up to three values: "e.g. 4521, 4533 or 4540"
			tm := exampleToken.FindStringSubmatchIndex(rest)
			if tm == nil {
				break
			}
			v := rest[tm[2]:tm[3]]
			if idLike.MatchString(v) && !placeholder(v) && !looksLikeDateOrVersion(v) {
				out = append(out, v)
			}
			rest = strings.TrimLeft(rest[tm[1]:], " ")
			switch {
			case strings.HasPrefix(rest, ","), strings.HasPrefix(rest, "/"):
				rest = strings.TrimLeft(rest[1:], " ")
			case strings.HasPrefix(rest, "or "), strings.HasPrefix(rest, "and "):
				rest = rest[strings.IndexByte(rest, ' ')+1:]
			default:
				rest = ""
			}
		}
	}
	return out
}

var (
	jsonTypes     = []string{"string", "integer", "number", "boolean", "array", "object"}
	typeHints     = newHintSet(jsonTypes, []string{"type"})
	hintJSONTypes = typeHints.of(jsonTypes...)
	hintType      = typeHints.of("type")
)

var exampleHints = []string{"e.g", "eg.", "example", "instance", "such as", "like"}

var hexColour = regexp.MustCompile(`^#?[0-9a-f]{6}$`)

var dateOrVersion = regexp.MustCompile(`^(?:v?\d+(?:\.\d+)+|\d{4}-\d{2}(?:-\d{2})?.*|\d{1,4}[smhdwy]|(?:19|20)\d{2})$`)

func looksLikeDateOrVersion(v string) bool { return dateOrVersion.MatchString(strings.ToLower(v)) }

func checkExamples(c *toolCtx) {
	for _, t := range c.descriptions() {
		if t.key != "description" {
			continue
		}
		if vs := realLooking(t.s); len(vs) > 0 {
			c.report("description-example-real", t.ptr, fmt.Sprintf("example value %s looks like a real identifier: a model may send it as if the user had written it; use one that cannot be real (outside the range in use)", quoteList(vs)))
		}
	}
	for _, which := range []string{"inputSchema"} {
		eachSubschema(c.tool.Get(which), "/"+which, func(s *listing.Value, p *path) {
			ex := s.Get("examples")
			if ex == nil || ex.Kind != listing.Array {
				return
			}
			ptr := p.String()
			for i, it := range ex.Items {
				v := it.Str
				if it.Kind == listing.Number {
					v = it.Str
				} else if !it.IsString() {
					continue
				}
				if idLike.MatchString(v) && !placeholder(v) && !looksLikeDateOrVersion(v) {
					c.report("description-example-real", ptr+"/examples/"+itoa(i), fmt.Sprintf("example value %q looks like a real identifier: a model may send it as a real one; use one that cannot be real", v))
				}
			}
		})
	}
}

func quoteList(vs []string) string {
	n := min(len(vs), shownItems)
	q := make([]string, n)
	for i := range q {
		q[i] = fmt.Sprintf("%q", clip(vs[i]))
	}
	out := strings.Join(q, ", ")
	if more := len(vs) - n; more > 0 {
		out += fmt.Sprintf(" and %d more", more)
	}
	return out
}

// checkRepeatsSchema reports a parameter description that restates its schema.
func checkRepeatsSchema(c *toolCtx, name string, p *listing.Value, pp *path, desc string) {
	if desc == "" {
		return
	}
	var what []string
	if e := p.Get("enum"); e != nil && e.Kind == listing.Array && len(e.Items) >= 3 {
		all := true
		low := strings.ToLower(desc)
		for _, it := range e.Items {
			if !it.IsString() || it.Str == "" || !containsWord(low, strings.ToLower(it.Str)) {
				all = false
				break
			}
		}
		if all {
			what = append(what, "every enum value")
		}
	}
	// On the lower-cased description: "(" or "type", and a JSON type name.
	if h := typeHints.scanLower(desc); (strings.Contains(desc, "(") || h.any(hintType)) && h.any(hintJSONTypes) {
		if m := typeRepeat.FindStringSubmatch(desc); m != nil {
			typ := m[1] + m[2]
			if t := p.Get("type"); t.IsString() && strings.EqualFold(t.Str, typ) {
				what = append(what, "its type")
			}
		}
	}
	if d := p.Get("default"); d != nil {
		lit := strings.Trim(string(listing.Marshal(d, "")), `"`)
		if v := promisedDefault(desc, nil); v != "" && strings.EqualFold(v, lit) {
			what = append(what, "its default")
		}
	}
	if len(what) > 0 {
		c.report("description-repeats-schema", pp.String()+"/description", fmt.Sprintf("the description of %q repeats %s, which the schema already shows", name, strings.Join(what, " and ")))
	}
}

// containsWord reports whether w occurs in s between non-word characters.
func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		a, b := i+j, i+j+len(w)
		if (a == 0 || !isWordByte(s[a-1])) && (b == len(s) || !isWordByte(s[b])) {
			return true
		}
		i = a + 1
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// jaccard is the overlap of two sorted word lists: shared words over all words.
func jaccard(a, b []string) float64 {
	inter := words.Overlap(a, b)
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

// Verb classes: two tools that differ only by synonyms of one verb are not told apart by it.
var verbClass = func() map[string]string {
	m := map[string]string{}
	for class, ws := range map[string]string{
		"<read>":   "get fetch read lookup look show view describe retrieve list search find query",
		"<create>": "create add insert new post make",
		"<update>": "update edit set patch modify change put",
		"<delete>": "delete remove drop destroy erase purge",
	} {
		for _, w := range strings.Fields(ws) {
			m[w] = class
		}
	}
	return m
}()

// weakWords distinguish nothing: generic words and words every tool description uses.
var weakWords = set("id ids data info information detail details specific given one single tool tools github item items object objects result results thing new existing")

// signature returns a tool's distinguishing vocabulary as one key: content words of its name and
// description, verbs folded into classes, generic words dropped, sorted. Two tools with the same
// key say nothing the other does not: "create_branch" and "create_issue" share most words but
// name different objects; "get_data" and "fetch_data" do not.
func signature(name string, desc []string) string {
	sig := map[string]bool{}
	add := func(w string) {
		if c, ok := verbClass[w]; ok {
			w = c
		}
		if !weakWords[w] && !words.Generic[w] {
			sig[w] = true
		}
	}
	// The name's words keep their plural: list_alerts and get_alert differ in how many.
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if !words.Stop[w] {
			add(w)
		}
	}
	for _, w := range desc {
		add(w)
	}
	if len(desc) == 0 {
		return "" // no description: the reference's description check covers it
	}
	ws := make([]string, 0, len(sig))
	for w := range sig {
		ws = append(ws, w)
	}
	sort.Strings(ws)
	return strings.Join(ws, " ")
}

// siblingBudget bounds the work of checkSiblings, in steps (a word or mention compared): tools
// with one signature are compared pairwise, and thousands of look-alike tools would make that
// quadratic. Real listings take a few thousand steps.
const siblingBudget = 32 << 20

func checkSiblings(c *listCtx) {
	// Only tools with the same signature can be reported, so group by it first: the check
	// then costs one map insert per tool on every keystroke, not a comparison per pair. The
	// groups are visited in order of their first tool, so that a budget cut is deterministic.
	groups := map[string][]int{}
	var order []string
	for i, f := range c.facts {
		if f.signature != "" {
			if _, ok := groups[f.signature]; !ok {
				order = append(order, f.signature)
			}
			groups[f.signature] = append(groups[f.signature], i)
		}
	}
	// Each tool is reported once, with the later tools it is confused with, so that a listing
	// of many look-alike tools gives one finding per tool rather than one per pair; only the
	// first three are kept, and how many there are.
	type partners struct {
		n     int
		first []int
	}
	found := map[int]*partners{}
	var total, compared int64
	for _, sig := range order {
		n := int64(len(groups[sig]))
		total += n * (n - 1) / 2
	}
	left := int64(siblingBudget)
compare:
	for _, sig := range order {
		g := groups[sig]
		for x, a := range g {
			if x%64 == 0 && c.ctx.Err() != nil {
				return // Lint reports the context's error
			}
			fa := c.facts[a]
			for _, b := range g[x+1:] {
				fb := c.facts[b]
				if left -= int64(len(fa.descWords) + len(fb.descWords) + len(fa.mentions) + len(fb.mentions) + 1); left < 0 {
					break compare
				}
				compared++
				if c.names[a] == c.names[b] {
					continue // name-unique reports it
				}
				// The reference's near-duplicate measure: half the description words shared.
				if jaccard(fa.descWords, fb.descWords) < 0.5 {
					continue
				}
				if mentionsName(fa, c.names[b]) || mentionsName(fb, c.names[a]) {
					continue
				}
				p := found[a]
				if p == nil {
					p = &partners{}
					found[a] = p
				}
				p.n++
				if len(p.first) < 3 {
					p.first = append(p.first, b)
				}
			}
		}
	}
	tools := make([]int, 0, len(found))
	for a := range found {
		tools = append(tools, a)
	}
	sort.Ints(tools)
	for _, a := range tools {
		p := found[a]
		var names []string
		for _, b := range p.first {
			names = append(names, clip(c.names[b]))
		}
		others := strings.Join(names, ", ")
		if p.n > 3 {
			others += fmt.Sprintf(" and %d more", p.n-3)
		}
		c.report("description-sibling-unnamed", a, "/tools/"+itoa(a)+"/description",
			fmt.Sprintf("%s and %s have near-duplicate descriptions, nothing in either says what the other does not, and neither names the other: say in each when to use the other instead", clip(c.names[a]), others))
	}
	if left < 0 {
		c.report("description-sibling-unnamed", -1, "/tools",
			fmt.Sprintf("the comparison budget ran out after %d of the %d pairs of tools with the same distinguishing words, so look-alike tools after those may not be reported: give each tool words that set it apart", compared, total))
	}
}

func mentionsName(f *toolFacts, name string) bool {
	for _, m := range f.mentions {
		if m.word == name {
			return true
		}
	}
	return false
}

// exampleIntros returns what exampleIntro.FindAllStringIndex(s, -1) returns, without the
// regular expression engine: every match starts a word with e, f, s or l, so only those word
// starts are tried, with the alternatives in the expression's order (the first that matches
// wins, as in the expression). Run on every description, the expression was the costliest part
// of checkExamples.
func exampleIntros(s string) [][2]int {
	var out [][2]int
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 'e', 'f', 's', 'l':
		default:
			continue
		}
		if i > 0 && isWordByte(s[i-1]) {
			continue // \b: isWordByte is \w, and a byte of a multi-byte character is not one
		}
		n := introAt(s[i:])
		if n < 0 {
			continue
		}
		end := i + n
		for end < len(s) && (reSpace(s[end]) || s[end] == ',' || s[end] == ':') {
			end++
		}
		out = append(out, [2]int{i, end})
		i = end - 1
	}
	return out
}

// introAt returns the length of the alternative of exampleIntro that matches at the start of s
// (before [\s,:]*), or -1.
func introAt(s string) int {
	for _, lit := range [...]string{"e.g.", "eg.", "for example", "for instance", "such as"} {
		if strings.HasPrefix(s, lit) {
			return len(lit)
		}
	}
	for _, lit := range [...]string{"example", "examples"} {
		if strings.HasPrefix(s, lit) {
			j := len(lit)
			for j < len(s) && reSpace(s[j]) {
				j++
			}
			if j < len(s) && s[j] == ':' {
				return j + 1
			}
		}
	}
	if strings.HasPrefix(s, "like") {
		return 4
	}
	return -1
}

// reSpace is \s of Go's regular expressions: [\t\n\f\r ].
func reSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }
