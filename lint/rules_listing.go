package lint

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tool-workbench/workbench/listing"
)

func init() {
	register(
		&Rule{ID: "output-schema-root", Category: CatOutput, Severity: Warning, Scope: PerTool, Seed: seed000,
			Summary: "an outputSchema whose root is not an object",
			What:    "The root of outputSchema does not say \"type\": \"object\". Revision 2025-11-25 required structured content to be an object; from 2026-07-28 (the default target, --revision) any JSON value is allowed, so the finding is then about older clients and the SDKs that still wrap other values.",
			Why:     "At the pinned revision structuredContent may be any JSON value, but revision 2025-11-25 required an object, and the Python SDK still wraps any value that is not an object in {\"result\": …}: a host written to the specification that expects a string gets an object instead. Return an object and the question never comes up.",
			Bad:     `"outputSchema": {"type": "string"}`,
			Good:    `"outputSchema": {"type": "object", "properties": {"amount": {"type": "string"}}, "required": ["amount"]}`},
		&Rule{ID: "output-schema-missing", Category: CatOutput, Severity: Info, Scope: PerTool, Seed: seed003 + "; " + seed000,
			Summary: "a tool whose description promises a fixed-shape result but that declares no outputSchema",
			What:    "The description says the tool returns JSON, an object, a record or named fields (\"Returns the quote_id, amount and within_limit\", \"returns a JSON object with …\"), and the tool has no outputSchema.",
			Why:     "Declare an outputSchema when the shape is fixed: the server must then return structured results that conform and clients should validate them, so host code can branch on a field instead of searching a sentence. Advice, not a defect.",
			Bad:     `"description": "Quote a refund. Returns a JSON object with quote_id, amount and within_limit."  (no outputSchema)`,
			Good:    `"outputSchema": {"type": "object", "properties": {"quote_id": …, "amount": …, "within_limit": {"type": "boolean"}}, "required": [...]}`},
		&Rule{ID: "output-schema-wrapped", Category: CatOutput, Severity: Info, Scope: PerTool, Seed: seed000,
			Summary: "an outputSchema that only wraps one value in {\"result\": …}",
			What:    "The outputSchema's only property is result (and it is required): the wrapper an SDK generates for a tool that returns a bare string, number or list.",
			Why:     "The SDK wraps primitive returns in {\"result\": …} and publishes an object schema to match; host code then reads result, a name that says nothing. Return a model with a field for each decision the host's code makes.",
			Bad:     `"outputSchema": {"type": "object", "properties": {"result": {"type": "string"}}, "required": ["result"]}`,
			Good:    `"outputSchema": {"type": "object", "properties": {"amount": {"type": "string"}, "within_limit": {"type": "boolean"}}, "required": ["amount", "within_limit"]}`},
		&Rule{ID: "listing-too-many-tools", Category: CatListing, Severity: Warning, Scope: ListingWide, Seed: seed000 + ", \"Keep the tool list small\"",
			Summary: "more tools than the budget",
			What:    fmt.Sprintf("The listing holds more tools than the budget, %d by default (--max-tools).", DefaultMaxTools),
			Why:     "The host puts every tool in the prompt on every turn. In one test, retrieving only the relevant tools more than tripled selection accuracy (13.62% to 43.13%); on edge devices fewer tools raised success and cut execution time by up to 70%. Give each server one audience and the few tools its tasks need; split the rest across servers.",
			Bad:     `one server exposing 117 tools for every toolset`,
			Good:    `a server per audience (issues, pull requests, CI), each with the dozen tools its tasks need`},
		&Rule{ID: "listing-token-budget", Category: CatListing, Severity: Warning, Scope: ListingWide, Seed: seed000 + ", \"Keep the tool list small\"",
			Summary: "the listing's definitions take more tokens than the budget",
			What:    fmt.Sprintf("Sums each tool's tokens (its definition as compact JSON; a real tokenizer when the CLI has one, otherwise about four bytes a token) against a budget, %d by default (--max-tokens).", DefaultMaxListingTokens),
			Why:     "The seed's five tools took 970 tokens, about 194 a tool; 20 such tools would take nearly all of the 4096-token context its recordings run with, before the model reads the request. Measure what the list costs in your host's prompt and spend the tokens on what separates tools.",
			Bad:     `a listing of 60 000 tokens sent on every turn`,
			Good:    `a listing that fits in a few thousand tokens: short descriptions, schemas that carry the constraints`},
		&Rule{ID: "name-collision-merged", Category: CatNaming, Severity: Warning, Scope: ListingWide, Seed: seed000 + ", \"Tool names that collide across servers\"",
			Summary: "the same tool name on two servers a host may connect together",
			What:    "When several servers' listings are checked together (workbench check A.json --merge B.json), reports each name that more than one server lists, and names that differ only in case or separators.",
			Why:     "A host connected to two servers can see two tools called get_order_status. The specification says hosts SHOULD disambiguate, for example by prefixing the server's name, and not every host does; a name that already says its object (tickets_search, not search) stays meaningful without a prefix.",
			Bad:     `server A: "search", server B: "search"`,
			Good:    `server A: "tickets_search", server B: "docs_search"`},
	)
	toolChecks = append(toolChecks, checkOutput)
	listingChecks = append(listingChecks, checkBudgets)
}

var returnsShape = regexp.MustCompile(`(?i)\breturns?\b[^.]{0,60}\b(?:json|object|record|dictionary|fields?|keys|properties|structured)\b`)

// promisesShape reports whether returnsShape matches d, without the expression: on a
// description of megabytes its [^.]{0,60} under (?i) took seconds, and on a window after every
// "return" as long, since a text can hold a "return" every few bytes. It reads d once, and after
// each "return" at most 60 characters: a match is \breturns?\b, up to 60 characters other
// than ".", then \b, one of the words, \b; (?i) folds ASCII case, and also "ſ" (U+017F) to s
// and "K" (U+212A) to k.
func promisesShape(d string) bool {
	for i := 0; i+6 <= len(d); i++ {
		if d[i]|0x20 != 'r' || !strings.EqualFold(d[i:i+6], "return") || (i > 0 && isWordByte(d[i-1])) {
			continue
		}
		// returns?\b: the regexp tries the plural first; either may lead to a match.
		j := i + 6
		if n := foldedS(d, j); n > 0 && wordBoundary(d, j+n) && shapeWithin(d, j+n) {
			return true
		}
		if wordBoundary(d, j) && shapeWithin(d, j) {
			return true
		}
	}
	return false
}

// shapeWithin reports whether one of returnsShape's words, between word boundaries, starts
// within 60 characters other than "." of d[from:].
func shapeWithin(d string, from int) bool {
	q := from
	for k := 0; ; k++ {
		if wordBoundary(d, q) && shapeWordAt(d, q) {
			return true
		}
		if k == 60 || q >= len(d) || d[q] == '.' {
			return false
		}
		_, size := utf8.DecodeRuneInString(d[q:])
		q += size
	}
}

// shapeWordAt reports whether one of the words of returnsShape, folded as (?i) folds, starts at
// d[q] and is followed by a word boundary.
func shapeWordAt(d string, q int) bool {
	for _, w := range [...]string{"json", "object", "record", "dictionary", "fields", "field", "keys", "properties", "structured"} {
		p := q
		ok := true
		for k := 0; k < len(w) && ok; k++ {
			switch n := foldedLetter(d, p, w[k]); {
			case n > 0:
				p += n
			default:
				ok = false
			}
		}
		if ok && wordBoundary(d, p) {
			return true
		}
	}
	return false
}

// foldedLetter returns the length of the character at d[p] if (?i) matches it to the
// lower-case ASCII letter c, or 0.
func foldedLetter(d string, p int, c byte) int {
	if p >= len(d) {
		return 0
	}
	if d[p]|0x20 == c && d[p] < utf8.RuneSelf && isASCIILetter(d[p]) {
		return 1
	}
	switch c {
	case 's':
		if strings.HasPrefix(d[p:], "ſ") {
			return len("ſ")
		}
	case 'k':
		if strings.HasPrefix(d[p:], "\u212a") {
			return len("\u212a")
		}
	}
	return 0
}

// foldedS is foldedLetter for s.
func foldedS(d string, p int) int { return foldedLetter(d, p, 's') }

// wordBoundary is \b at d[p]: an ASCII word character on one side and not on the other.
func wordBoundary(d string, p int) bool {
	before := p > 0 && isWordByte(d[p-1])
	after := p < len(d) && isWordByte(d[p])
	return before != after
}

func checkOutput(c *toolCtx) {
	out := c.tool.Get("outputSchema")
	if out == nil {
		if d := c.tool.Get("description").String(); promisesShape(d) {
			c.report("output-schema-missing", "/description", "the description promises a structured result but the tool declares no outputSchema: declare one so that clients can validate the result and code can read its fields")
		}
		return
	}
	if !out.IsObject() {
		c.report("output-schema-root", "/outputSchema", fmt.Sprintf("outputSchema must be a JSON Schema object, got %s", out.Kind))
		return
	}
	if t := out.Get("type"); !typeIs(t, "object") {
		got := "no \"type\""
		if t != nil {
			got = "type " + string(listing.Marshal(t, ""))
		}
		if c.cfg.Revision < "2026-07-28" {
			c.report("output-schema-root", "/outputSchema", fmt.Sprintf("outputSchema's root has %s; at revision %s structured content must be an object: say \"type\": \"object\"", got, c.cfg.Revision))
		} else {
			c.report("output-schema-root", "/outputSchema", fmt.Sprintf("outputSchema's root has %s: allowed from revision 2026-07-28, but clients of 2025-11-25 require an object and SDKs wrap other values in {\"result\": …}", got))
		}
	}
	if props := out.Get("properties"); props.IsObject() && len(props.Fields()) == 1 && props.Get("result") != nil {
		c.report("output-schema-wrapped", "/outputSchema/properties/result", "the output schema only wraps one value in \"result\", as SDKs do for a bare return value: return an object whose fields name what the host's code reads")
	}
}

func checkBudgets(c *listCtx) {
	if n := len(c.facts); n > c.cfg.MaxTools {
		c.report("listing-too-many-tools", -1, "/tools", fmt.Sprintf("%d tools, over the budget of %d: the model reads every one on every turn; split them across servers by audience", n, c.cfg.MaxTools))
	}
	total := 0
	for _, f := range c.facts {
		total += f.tokens
	}
	if total > c.cfg.MaxListingTokens {
		// Name the heaviest tools: that is where cutting pays.
		idx := make([]int, len(c.facts))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return c.facts[idx[a]].tokens > c.facts[idx[b]].tokens })
		var top []string
		for _, i := range idx[:min(3, len(idx))] {
			top = append(top, fmt.Sprintf("%s %d", clip(c.names[i]), c.facts[i].tokens))
		}
		c.report("listing-token-budget", -1, "/tools", fmt.Sprintf("the tools take about %d tokens, over the budget of %d; the largest: %s", total, c.cfg.MaxListingTokens, strings.Join(top, ", ")))
	}
}

// Named is one server's listing for MergeCollisions.
type Named struct {
	Name    string // how findings call the server (a file name)
	Listing *listing.Listing
}

// Origin is where a text starts in a larger document: its 1-based line and column.
type Origin struct{ Line, Column int }

// Shift moves the positions of findings located in a text that starts at o to the larger
// document.
func (o Origin) Shift(fs []Finding) {
	if o.Line <= 1 && o.Column <= 1 {
		return
	}
	for i := range fs {
		if fs[i].Line == 0 {
			continue
		}
		if fs[i].Line == 1 {
			fs[i].Column += o.Column - 1
		}
		fs[i].Line += o.Line - 1
	}
}

// MergeCollisions reports tool names that collide when the listings are merged into one host:
// the same name on two servers, or names that differ only in case or separators. Each finding
// is about the later server's tool and names the earlier one. Its work and output are linear in
// the listings: each name is folded once, and findings show long names cut short.
func MergeCollisions(ls ...Named) []Finding {
	type seen struct {
		server string
		name   string
	}
	exact := map[string]seen{}
	folded := map[string]seen{}
	var out []Finding
	for _, nl := range ls {
		names := nl.Listing.Names()
		local := make(map[string]bool, len(names))
		for i, n := range names {
			if local[n] {
				continue // a repeat within one server is name-unique's finding
			}
			local[n] = true
			f := Finding{Rule: "name-collision-merged", Severity: registry["name-collision-merged"].Severity, Tool: clip(n),
				ToolIndex: i, Pointer: "/tools/" + itoa(i) + "/name", Source: nl.Name}
			s, dup := exact[n]
			if dup {
				f.Message = fmt.Sprintf("%s is also a tool of %s: a host that merges the two must rename one, and may not", clip(n), clipN(s.server, 1024))
				out = append(out, f)
				continue // the same name folds the same: nothing to add
			}
			exact[n] = seen{nl.Name, n}
			k := foldName(n)
			if s, ok := folded[k]; ok {
				f.Message = fmt.Sprintf("%s differs from %s of %s only in case or separators", clip(n), clip(s.name), clipN(s.server, 1024))
				out = append(out, f)
			} else {
				folded[k] = seen{nl.Name, n}
			}
		}
	}
	return out
}

func foldName(n string) string {
	var b strings.Builder
	b.Grow(len(n)) // lower case is as long for nearly every name
	for _, r := range n {
		if r != '_' && r != '-' && r != '.' {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}
