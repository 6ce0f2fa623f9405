package reference

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/internal/testutil"
	"github.com/tool-workbench/workbench/listing"
)

// runReference runs the reference checker (../shared/reference/tool_design_check.py) on listing
// (and tasks, when not empty) and returns its stdout, stderr and exit code. It is the only way
// the tests reach python3, and only under -update (testutil.Update), which rewrites
// testdata/lint/*.txt from its output.
func runReference(t *testing.T, src, tasks string) (stdout, stderr string, code int) {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("-update regenerates the expected lines with the reference checker, but python3 is not installed: %v", err)
	}
	referenceScript, ok := testutil.SharedPath(t, "reference", "tool_design_check.py")
	if !ok {
		t.Fatalf("-update needs the reference checker, %s, which is not here", referenceScript)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "listing.json")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{referenceScript, file}
	if tasks != "" {
		tf := filepath.Join(dir, "tasks.json")
		if err := os.WriteFile(tf, []byte(tasks), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--tasks", tf)
	}
	cmd := exec.Command(py, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("running the reference checker: %v", err)
		}
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

// A tool that passes every per-tool check: rows add the tools that break one.
const goodTool = `{"name": "find_book", "description": "Find a library book by its title or author, for the lending desk.",
 "inputSchema": {"type": "object", "properties": {"title": {"type": "string", "description": "Words of the title."}}, "required": ["title"]},
 "annotations": {"readOnlyHint": true}}`

// lintCase is a listing and, in shows, excerpts of the report that demonstrate the behaviour its
// name states. The whole report the reference prints for it is in testdata/lint/NAME.txt.
type lintCase struct {
	name    string
	listing string
	shows   []string
}

// lintCases are every case of the reference's checks, in the order of its report.
func lintCases() []lintCase {
	return slices.Concat(listingCases(), toolCases(), nearDuplicateCases())
}

// catalogueWords is n words of description, "catalogue catalogue …".
func catalogueWords(n int) string { return strings.TrimSpace(strings.Repeat("catalogue ", n)) }

// listingCases are the cases of the listing-wide checks before the tools: the INFO line, pagination and names.
func listingCases() []lintCase {
	return []lintCase{
		// INFO: the size of the tools as Python's json.dumps writes them compactly.
		{"info: size counts the tools as compact JSON in UTF-8 bytes", `[{"name": "é"}]`,
			[]string{"INFO 1 tools, 15 bytes as compact JSON (a client sends this, in some form, to the model)"}},
		{"info: size counts numbers as Python re-encodes them", `[{"name": "a", "x": [1E2, 1e-400, 1e400, -0, 0.50]}]`,
			[]string{"INFO 1 tools, 45 bytes as compact JSON (a client sends this, in some form, to the model)"}},
		{"info: size keeps escapes Python keeps and drops the ones it decodes", `[{"name": "a", "x": "\u0001\/\u00e9\"\ud83d\ude00"}]`,
			[]string{"INFO 1 tools, 36 bytes as compact JSON (a client sends this, in some form, to the model)"}},

		// list-complete: a truthy nextCursor means a page is missing.
		{"list-complete: nextCursor means only the first page was read", `{"tools": [` + goodTool + `], "nextCursor": "page-2"}`,
			[]string{"WARN list-complete: nextCursor present: only the first page was read"}},
		{"list-complete: an empty nextCursor is no further page", `{"tools": [` + goodTool + `], "nextCursor": ""}`,
			[]string{"PASS list-complete: the listing has no further page"}},
		{"list-complete: a zero nextCursor is no further page", `{"result": {"tools": [` + goodTool + `], "nextCursor": 0.0}}`,
			[]string{"PASS list-complete: the listing has no further page"}},

		// name-spec: 1 to 128 of A-Z a-z 0-9 _ - . (FAIL).
		{"name-spec: letters digits underscore hyphen and dot pass", `[{"name": "Book_2-go.v1"}]`,
			[]string{"PASS name-spec: all names are 1-128 characters from A-Z a-z 0-9 _ - ."}},
		{"name-spec: a space or slash fails and names are shown as Python repr", `[{"name": "find book"}, {"name": "books/find"}, {"name": "it's"}]`,
			[]string{`FAIL name-spec: outside the allowed set: 'find book', 'books/find', "it's"`}},
		{"name-spec: the empty name fails", `[{"name": ""}]`,
			[]string{"FAIL name-spec: outside the allowed set: ''"}},
		{"name-spec: 128 characters pass and 129 fail", `[{"name": "` + strings.Repeat("a", 128) + `"}, {"name": "` + strings.Repeat("b", 129) + `"}]`,
			[]string{"FAIL name-spec: outside the allowed set: '" + strings.Repeat("b", 129) + "'"}},
		{"name-spec: a final newline passes because Python's $ matches before it", `[{"name": "find_book\n"}, {"name": "find_book\n\n"}]`,
			[]string{`FAIL name-spec: outside the allowed set: 'find_book\n\n'`}},

		// name-unique: the same name twice (FAIL), listed sorted.
		{"name-unique: repeated names are listed once each in sorted order", `[{"name": "zeta"}, {"name": "alpha"}, {"name": "zeta"}, {"name": "alpha"}, {"name": "zeta"}]`,
			[]string{"FAIL name-unique: repeated: alpha, zeta"}},
		{"name-unique: names that differ in case are unique", `[{"name": "getBook"}, {"name": "GetBook"}]`,
			[]string{"PASS name-unique: every name is unique"}},

		// name-case-collision: names whose word parts are the same.
		{"name-case-collision: names that differ only in case", `[{"name": "getBook"}, {"name": "GetBook"}]`,
			[]string{"WARN name-case-collision: differ only in case or separators: GetBook / getBook"}},
		{"name-case-collision: snake kebab dotted and camel spellings of one name", `[{"name": "get_book"}, {"name": "get-book"}, {"name": "get.book"}, {"name": "getBook"}, {"name": "list_loans"}, {"name": "listLoans"}]`,
			[]string{"WARN name-case-collision: differ only in case or separators: get-book / get.book / getBook / get_book; listLoans / list_loans"}},
		{"name-case-collision: a plural s is folded", `[{"name": "get_books"}, {"name": "get_book"}]`,
			[]string{"WARN name-case-collision: differ only in case or separators: get_book / get_books"}},
		{"name-case-collision: an exact repeat is not a collision", `[{"name": "get_book"}, {"name": "get_book"}]`,
			[]string{"PASS name-case-collision: no two names differ only in case or separators"}},

		// name-style: snake_case, kebab-case, dotted, camelCase; names with none have no style.
		{"name-style: one style is named", `[{"name": "find_book"}, {"name": "lend_book"}, {"name": "books"}]`,
			[]string{"PASS name-style: one naming style (snake_case)"}},
		{"name-style: plain words have no style", `[{"name": "books"}, {"name": "Loans"}]`,
			[]string{"PASS name-style: one naming style"}},
		{"name-style: mixed styles are listed sorted", `[{"name": "findBook"}, {"name": "lend-book"}, {"name": "books.renew"}, {"name": "return_book"}]`,
			[]string{"WARN name-style: mixed styles: camelCase, dotted, kebab-case, snake_case"}},
		{"name-style: underscore wins over hyphen and dot, and PascalCase alone is no style", `[{"name": "find_book-v2.x"}, {"name": "FindBook"}, {"name": "FINDBOOK"}]`,
			[]string{"WARN name-style: mixed styles: camelCase, snake_case"}},
		{"name-style: hyphen wins over dot", `[{"name": "lend-book.v2"}, {"name": "renew-loan"}]`,
			[]string{"PASS name-style: one naming style (kebab-case)"}},

		// name-generic: every word part of the name is a generic word.
		{"name-generic: names made only of generic words", `[{"name": "get_data"}, {"name": "run"}, {"name": "list_items"}, {"name": "find_book"}, {"name": "__"}, {"name": "42"}]`,
			[]string{"WARN name-generic: names that never say which object: get_data, run, list_items"}},
	}
}

// toolCases are the cases of the per-tool checks: schema, description, parameters, annotations.
func toolCases() []lintCase {
	return []lintCase{
		// input-schema: the schema must be an object (FAIL); the detail names Python's type.
		{"input-schema: a missing schema is NoneType", `[{"name": "find_book"}]`,
			[]string{"FAIL input-schema:find_book: inputSchema must be an object, got NoneType"}},
		{"input-schema: each JSON type by its Python name", `[{"name": "a", "inputSchema": []}, {"name": "b", "inputSchema": "object"}, {"name": "c", "inputSchema": 1},
 {"name": "d", "inputSchema": 1.0}, {"name": "e", "inputSchema": 1e3}, {"name": "f", "inputSchema": true}, {"name": "g", "inputSchema": null}, {"name": "h", "inputSchema": NaN},
 {"name": "i", "inputSchema": -Infinity}, {"name": "j", "inputSchema": -0}]`,
			[]string{"FAIL input-schema:a: inputSchema must be an object, got list", "FAIL input-schema:b: inputSchema must be an object, got str",
				"FAIL input-schema:c: inputSchema must be an object, got int", "FAIL input-schema:d: inputSchema must be an object, got float",
				"FAIL input-schema:e: inputSchema must be an object, got float", "FAIL input-schema:f: inputSchema must be an object, got bool",
				"FAIL input-schema:g: inputSchema must be an object, got NoneType", "FAIL input-schema:h: inputSchema must be an object, got float",
				"FAIL input-schema:i: inputSchema must be an object, got float", "FAIL input-schema:j: inputSchema must be an object, got int"}},
		{"input-schema: an empty object passes", `[{"name": "ping", "inputSchema": {}}]`,
			[]string{"PASS input-schema:ping: inputSchema is a JSON Schema object"}},

		// description: at least 8 word parts, stop words included.
		{"description: missing, empty and false read as no description", `[{"name": "a"}, {"name": "b", "description": ""}, {"name": "c", "description": false}, {"name": "d", "description": "--"}]`,
			[]string{"WARN description:a: no description", "WARN description:b: no description", "WARN description:c: no description", "WARN description:d: no description"}},
		{"description: fewer than 8 words warns", `[{"name": "a", "description": "Find a book."}]`,
			[]string{"WARN description:a: 3 words, fewer than 8"}},
		{"description: 8 words pass and stop words count", `[{"name": "a", "description": "Find a book by the title of it."}]`,
			[]string{"PASS description:a: 8 words"}},
		{"description: word parts split at camelCase acronyms and digits", `[{"name": "a", "description": "getHTTPServer v2beta ISBN13"}]`,
			[]string{"PASS description:a: 8 words"}},
		{"description: non-ASCII letters split words and are not counted", `[{"name": "a", "description": "Prête un livre à un lecteur inscrit ici"}]`,
			[]string{"PASS description:a: 8 words"}},
		{"description: a huge description is counted in full", `[{"name": "a", "description": "` + catalogueWords(200000) + `"}]`,
			[]string{"PASS description:a: 200000 words"}},

		// params-described: every property has a description, an enum or a const.
		{"params-described: description enum and const each suffice", `[{"name": "a", "inputSchema": {"properties": {"p": {"description": "x"}, "q": {"enum": []}, "r": {"const": null}}, "required": []}}]`,
			[]string{"PASS params-described:a: every parameter has a description, enum or const"}},
		{"params-described: an empty description or a non-object property is loose", `[{"name": "a", "inputSchema": {"properties": {"p": {"description": ""}, "q": true, "r": {"type": "string"}, "s": {"description": 0}}, "required": []}}]`,
			[]string{"WARN params-described:a: no description or enum: p, q, r, s"}},

		// params-required: a schema with properties declares required, even empty.
		{"params-required: any required member passes, even a non-list", `[{"name": "a", "inputSchema": {"properties": {"p": {"const": 1}}, "required": null}}]`,
			[]string{"PASS params-required:a: required is declared"}},
		{"params-required: missing required warns", `[{"name": "a", "inputSchema": {"properties": {"p": {"const": 1}}}}]`,
			[]string{"WARN params-required:a: no `required` (use an empty list when all are optional)"}},

		// params-opaque: an object parameter without properties.
		{"params-opaque: object parameters with no or empty properties", `[{"name": "a", "inputSchema": {"properties": {"p": {"type": "object", "description": "x"}, "q": {"type": "object", "properties": {}, "description": "x"},
 "r": {"type": "object", "properties": {"k": {}}, "description": "x"}, "s": {"type": ["object"], "description": "x"}}, "required": []}}]`,
			[]string{"WARN params-opaque:a: object parameter without `properties`: p, q"}},

		// no-params-closed: a tool without parameters says additionalProperties: false.
		{"no-params-closed: only false closes, not 0 or null", `[{"name": "a", "inputSchema": {"additionalProperties": false}}, {"name": "b", "inputSchema": {"additionalProperties": 0}},
 {"name": "c", "inputSchema": {"properties": {}, "additionalProperties": null}}, {"name": "d", "inputSchema": {"properties": [1]}}]`,
			[]string{"PASS no-params-closed:a: closed with additionalProperties: false",
				"WARN no-params-closed:b: a tool without parameters should say additionalProperties: false",
				"WARN no-params-closed:c: a tool without parameters should say additionalProperties: false",
				"WARN no-params-closed:d: a tool without parameters should say additionalProperties: false"}},

		// annotations: a name whose first verb reads or writes wants the matching hints.
		{"annotations: a read verb wants readOnlyHint", `[{"name": "lookup_book"}, {"name": "show_loans", "annotations": {"readOnlyHint": null}}]`,
			[]string{"WARN annotations:lookup_book: `readOnlyHint` is not set; the schema default says the tool may modify and be destructive",
				"PASS annotations:show_loans: readOnlyHint is set"}},
		{"annotations: a write verb takes either hint", `[{"name": "renew_loan"}, {"name": "cancel_hold", "annotations": {"destructiveHint": false}}, {"name": "send_notice", "annotations": []}]`,
			[]string{"PASS annotations:cancel_hold: readOnlyHint or destructiveHint is set",
				"WARN annotations:send_notice: `readOnlyHint` or `destructiveHint` is not set; the schema default says the tool may modify and be destructive"}},
		{"annotations: the first verb decides and plural verbs fold", `[{"name": "getAndDeleteBook", "annotations": {"readOnlyHint": false}}, {"name": "deletes_then_get"}]`,
			[]string{"PASS annotations:getAndDeleteBook: readOnlyHint is set",
				"WARN annotations:deletes_then_get: `readOnlyHint` or `destructiveHint` is not set; the schema default says the tool may modify and be destructive"}},
	}
}

// nearDuplicateCases are the near-duplicate cases and hostile input.
func nearDuplicateCases() []lintCase {
	return []lintCase{
		// near-duplicate: descriptions whose content words overlap (Jaccard) by 50% or more.
		{"near-duplicate: a pair at exactly 50% is reported", `[{"name": "a", "description": "alpha beta gamma"}, {"name": "b", "description": "alpha beta delta"}, {"name": "c", "description": "omega"}]`,
			[]string{"WARN near-duplicate: descriptions that share most of their words: a and b (50%)"}},
		{"near-duplicate: one shared word of two is 50%", `[{"name": "a", "description": "alpha"}, {"name": "b", "description": "alpha beta"}]`,
			[]string{"WARN near-duplicate: descriptions that share most of their words: a and b (50%)"}},
		{"near-duplicate: stop words and plurals do not separate descriptions", `[{"name": "a", "description": "Lists the books of a member"}, {"name": "b", "description": "List books for members"}]`,
			[]string{"WARN near-duplicate: descriptions that share most of their words: a and b (100%)"}},
		{"near-duplicate: the percentage rounds half to even", `[{"name": "a", "description": "alpha beta gamma delta epsilon zeta eta"}, {"name": "b", "description": "alpha beta gamma delta epsilon theta"}]`,
			[]string{"WARN near-duplicate: descriptions that share most of their words: a and b (62%)"}},
		{"near-duplicate: under 50% and empty descriptions pass", `[{"name": "a", "description": "alpha beta gamma"}, {"name": "b", "description": "alpha delta epsilon"}, {"name": "c"}, {"name": "d", "description": "the of"}]`,
			[]string{"PASS near-duplicate: no two descriptions overlap by 50% or more"}},
		{"near-duplicate: a repeated name stands for its last description", `[{"name": "a", "description": "alpha beta"}, {"name": "b", "description": "gamma delta"}, {"name": "a", "description": "gamma delta"}]`,
			[]string{"WARN near-duplicate: descriptions that share most of their words: a and b (100%); b and a (100%)"}},
		{"near-duplicate: pairs are listed in listing order", `[{"name": "c", "description": "apple pear"}, {"name": "a", "description": "plum fig"}, {"name": "b", "description": "apple pear"}, {"name": "d", "description": "plum fig"}]`,
			[]string{"WARN near-duplicate: descriptions that share most of their words: c and b (100%); a and d (100%)"}},
		{"near-duplicate: many tools sharing long descriptions", manyAlike(16),
			[]string{"WARN near-duplicate: descriptions that share most of their words: t00 and t01 (78%); t00 and t02 (78%); t00 and t03 (100%);"}},
		{"near-duplicate: one pair among many distinct descriptions", manyDistinct(30),
			[]string{"WARN near-duplicate: descriptions that share most of their words: u07 and u08 (100%); u07 and u23 (100%); u08 and u23 (100%)\n"}},

		// Hostile input.
		{"hostile: the empty listing", `[]`,
			[]string{"INFO 0 tools, 2 bytes as compact JSON (a client sends this, in some form, to the model)",
				"PASS name-spec: all names are 1-128 characters from A-Z a-z 0-9 _ - .",
				"PASS near-duplicate: no two descriptions overlap by 50% or more"}},
		{"hostile: non-ASCII names are shown as Python repr shows them", `[{"name": "prêter_livre"}, {"name": "书"}, {"name": "\u200b"}, {"name": "a\u00a0b"}, {"name": "tab\there"}, {"name": "😀"}, {"name": "\u007f"}]`,
			[]string{`FAIL name-spec: outside the allowed set: 'prêter_livre', '书', '\u200b', 'a\xa0b', 'tab\there', '😀', '\x7f'`}},
		{"hostile: a character newer than Python's Unicode tables is escaped in repr", `[{"name": "🫨"}]`,
			[]string{`FAIL name-spec: outside the allowed set: '\U0001fae8'`}},
		{"hostile: names that differ only in a non-ASCII letter collide", `[{"name": "résumé_get"}, {"name": "rèsumè_get"}, {"name": "RÉSUMÉ_GET"}]`,
			[]string{"WARN name-case-collision: differ only in case or separators: RÉSUMÉ_GET / rèsumè_get / résumé_get"}},
		{"hostile: names only of non-ASCII letters all collide on the empty word list", `[{"name": "书"}, {"name": "ß"}]`,
			[]string{"WARN name-case-collision: differ only in case or separators: ß / 书"}},
		{"hostile: a lone surrogate outside the tools is never written", `{"tools": [{"name": "a"}], "nextCursor": "\ud800"}`,
			[]string{"WARN list-complete: nextCursor present: only the first page was read"}},
		{"hostile: a description that is falsy but not a string reads as none", `[{"name": "a", "description": 0}, {"name": "b", "description": []}, {"name": "c", "description": {}}, {"name": "d", "description": 1e-400}]`,
			[]string{"WARN description:a: no description", "WARN description:d: no description"}},
		{"hostile: JSON-pointer characters and quotes in names", `[{"name": "a/b~c"}, {"name": "say \"hi\" it's"}]`,
			[]string{`FAIL name-spec: outside the allowed set: 'a/b~c', 'say "hi" it\'s'`}},
	}
}

// manyAlike is a listing of n tools whose descriptions share most of their words, so that the
// near-duplicate counting takes its bitset path.
func manyAlike(n int) string {
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `{"name": "t%02d", "description": "shelf row aisle floor wing room desk %s"}`, i, strings.Repeat(fmt.Sprintf("own%d ", i), i%3))
	}
	b.WriteString("]")
	return b.String()
}

// manyDistinct is a listing of n tools with descriptions of their own but for three, so that
// the near-duplicate counting takes its inverted-index path.
func manyDistinct(n int) string {
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		d := fmt.Sprintf("only%c%c", 'a'+i%26, 'a'+i/26)
		if i == 7 || i == 8 || i == 23 {
			d = "shared wording"
		}
		fmt.Fprintf(&b, `{"name": "u%02d", "description": "%s"}`, i, d)
	}
	b.WriteString("]")
	return b.String()
}

// goldenName turns a row's name into a file name.
func goldenName(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else if s := b.String(); s != "" && !strings.HasSuffix(s, "-") {
			b.WriteByte('-')
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// report formats lines as the reference prints them, with its closing count and exit code.
func report(lines []Line) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.String())
		b.WriteByte('\n')
	}
	p, w, f := Counts(lines)
	fmt.Fprintf(&b, "%d pass, %d warn, %d fail\n", p, w, f)
	code := 0
	if f > 0 {
		code = 1
	}
	fmt.Fprintf(&b, "[exit %d]\n", code)
	return b.String()
}

// TestLintMatchesReference: for each rule of the reference checker, Lint prints the lines the
// reference prints (testdata/lint, written by the reference itself with -update).
func TestLintMatchesReference(t *testing.T) {
	seen := map[string]string{}
	for _, c := range lintCases() {
		t.Run(c.name, func(t *testing.T) {
			golden := filepath.Join("testdata", "lint", goldenName(c.name)+".txt")
			if other, ok := seen[golden]; ok {
				t.Fatalf("rows %q and %q share the golden file %s", other, c.name, golden)
			}
			seen[golden] = c.name
			if *testutil.Update {
				out, stderr, code := runReference(t, c.listing, "")
				if stderr != "" || code > 1 {
					t.Fatalf("the reference cannot check this row (exit %d): %s%s", code, out, stderr)
				}
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, fmt.Appendf(nil, "%s[exit %d]\n", out, code), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -update writes it with python3 and the reference checker)", err)
			}
			for _, s := range c.shows {
				if !bytes.Contains(want, []byte(s)) {
					t.Errorf("the reference's report no longer shows what this row is about:\n%s\nreport:\n%s", s, want)
				}
			}
			l, err := listing.Parse([]byte(c.listing), listing.Options{Name: "row"})
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if err := Validate(l, false); err != nil {
				t.Fatalf("Validate refuses a listing the reference checks: %v", err)
			}
			if got := report(Lint(l)); got != string(want) {
				t.Errorf("Lint differs from the reference checker\n got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestValidateRefusesWhatCrashesTheReference: Validate refuses, at the first bad value, exactly
// the input on which the reference stops with a Python exception; falsy non-text is no crash.
// With -update each row is run through the reference to confirm it crashes or not.
func TestValidateRefusesWhatCrashesTheReference(t *testing.T) {
	tests := []struct {
		name    string
		listing string
		ranking bool   // the listing is ranked against a task file, as with --tasks
		ptr     string // the pointer Validate reports, or "" when it accepts
		msg     string
	}{
		{"a number description crashes the near-duplicate check", `[{"name": "a", "description": 12}]`, false,
			"/tools/0/description", "description is a number, not a string"},
		{"a true description crashes", `[{"name": "a", "description": true}]`, false,
			"/tools/0/description", "description is a boolean, not a string"},
		{"a non-empty list description crashes", `[{"name": "a", "description": ["x"]}]`, false,
			"/tools/0/description", "description is a array, not a string"},
		{"a falsy description is read as none", `[{"name": "a", "description": 0}, {"name": "b", "description": null}, {"name": "c", "description": {}}]`, false,
			"", ""},
		{"the first bad tool is reported", `[{"name": "a"}, {"name": "b", "description": 1}, {"name": "c", "description": 2}]`, false,
			"/tools/1/description", "description is a number"},
		{"a lone surrogate in a description cannot be written as UTF-8", `[{"name": "a", "description": "ok \ud800"}]`, false,
			"/tools/0/description", "lone surrogate"},
		{"a lone surrogate in a name", `[{"name": "\udfff"}]`, false,
			"/tools/0/name", "lone surrogate"},
		{"a lone surrogate in a key deep in the schema", `[{"name": "a", "inputSchema": {"properties": {"p\ud83d": {}}}}]`, false,
			"/tools/0/inputSchema/properties/p\xed\xa0\xbd", "lone surrogate"}, // U+D83D in WTF-8
		{"a lone surrogate in an array in a field the reference never reads", `[{"name": "a", "x-extra": [1, "\udc00"]}]`, false,
			"/tools/0/x-extra/1", "lone surrogate"},
		{"a surrogate pair is a character, not a lone surrogate", `[{"name": "a", "description": "\ud83d\ude00"}]`, false,
			"", ""},
		{"a title that is not text crashes only the ranker", `[{"name": "a", "title": ["x"]}]`, false,
			"", ""},
		{"a title that is not text crashes the ranker", `[{"name": "a", "title": ["x"]}]`, true,
			"/tools/0/title", "title is a array, not a string"},
		{"a schema that is not an object crashes the ranker", `[{"name": "a", "inputSchema": [1]}]`, true,
			"/tools/0/inputSchema", "inputSchema is a array, not an object"},
		{"a schema that is not an object is only a lint failure", `[{"name": "a", "inputSchema": [1]}]`, false,
			"", ""},
		{"a parameter description that is not text crashes the ranker", `[{"name": "a", "inputSchema": {"properties": {"a/b": {"description": 5}}}}]`, true,
			"/tools/0/inputSchema/properties/a~1b/description", "a parameter description is a number, not a string"},
		{"an enum that is a number crashes the ranker", `[{"name": "a", "inputSchema": {"properties": {"p": {"enum": 3}}}}]`, true,
			"/tools/0/inputSchema/properties/p/enum", "enum is a number, not an array"},
		{"a tool without properties, or with a property that is not an object, is ranked", `[{"name": "a"}, {"name": "b", "inputSchema": {"properties": {"p": true}}}]`, true,
			"", ""},
		{"an enum that is true crashes the ranker", `[{"name": "a", "inputSchema": {"properties": {"p": {"enum": true}}}}]`, true,
			"/tools/0/inputSchema/properties/p/enum", "enum is a boolean, not an array"},
		{"an enum that is false is read as none", `[{"name": "a", "inputSchema": {"properties": {"p": {"enum": false}}}}]`, true,
			"", ""},
		{"an enum that is a string is iterated by the ranker", `[{"name": "a", "inputSchema": {"properties": {"p": {"enum": "xy"}}}}]`, true,
			"", ""},
	}
	const tasks = `[{"task": "find a book", "expect": "a"}]`
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if *testutil.Update {
				task := ""
				if tt.ranking {
					task = tasks
				}
				_, stderr, _ := runReference(t, tt.listing, task)
				if crashed := strings.Contains(stderr, "Traceback"); crashed != (tt.ptr != "") {
					t.Fatalf("the reference crashed: %v; the row says it does: %v\n%s", crashed, tt.ptr != "", stderr)
				}
			}
			l, err := listing.Parse([]byte(tt.listing), listing.Options{Name: "row"})
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			err = Validate(l, tt.ranking)
			if tt.ptr == "" {
				if err != nil {
					t.Fatalf("Validate refuses input the reference reads: %v", err)
				}
				return
			}
			var ce *CrashError
			if !errors.As(err, &ce) {
				t.Fatalf("Validate = %v, want a *CrashError at %s", err, tt.ptr)
			}
			if ce.Ptr != tt.ptr || !strings.Contains(ce.Msg, tt.msg) {
				t.Errorf("Validate = %q at %q, want %q at %q", ce.Msg, ce.Ptr, tt.msg, tt.ptr)
			}
			if want := ce.Ptr + ": " + ce.Msg; err.Error() != want {
				t.Errorf("Error() = %q, want %q", err.Error(), want)
			}
		})
	}
}

// TestLineLocations: each line says which tool and rule it is about and points at the field, so
// the workbench can link a finding to what to edit.
func TestLineLocations(t *testing.T) {
	l, err := listing.Parse([]byte(`[{"name": "a"}, {"name": "get_book", "inputSchema": {"properties": {"p": {}}}}]`), listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	type loc struct {
		rule string
		tool int
		ptr  string
	}
	var got []loc
	for _, ln := range Lint(l) {
		got = append(got, loc{ln.Rule, ln.Tool, ln.Ptr})
	}
	want := []loc{
		{"", -1, ""},
		{"list-complete", -1, ""}, {"name-spec", -1, ""}, {"name-unique", -1, ""},
		{"name-case-collision", -1, ""}, {"name-style", -1, ""}, {"name-generic", -1, ""},
		{"input-schema", 0, "/tools/0/inputSchema"}, {"description", 0, "/tools/0/description"},
		{"params-described", 0, "/tools/0/inputSchema/properties"}, {"params-opaque", 0, "/tools/0/inputSchema/properties"},
		{"no-params-closed", 0, "/tools/0/inputSchema"},
		{"input-schema", 1, "/tools/1/inputSchema"}, {"description", 1, "/tools/1/description"},
		{"params-described", 1, "/tools/1/inputSchema/properties"}, {"params-required", 1, "/tools/1/inputSchema"},
		{"params-opaque", 1, "/tools/1/inputSchema/properties"}, {"annotations", 1, "/tools/1/annotations"},
		{"near-duplicate", -1, ""},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("locations\n got %v\nwant %v", got, want)
	}
}
