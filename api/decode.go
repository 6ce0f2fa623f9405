package api

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/selection"
)

// request is a decoded JSON request body: an object whose members have been checked against
// the endpoint's fields. Values keep their byte positions in src, so that every error about
// the request can name its line and column.
type request struct {
	src  []byte
	root *listing.Value
}

// readBody reads a request body under the API's limits: the body must be declared as JSON
// and be at most max bytes.
func readBody(c echo.Context, max int64) ([]byte, error) {
	r := c.Request()
	if err := checkContentType(r.Header.Get(echo.HeaderContentType)); err != nil {
		return nil, err
	}
	if r.ContentLength > max {
		return nil, &Error{Code: CodeTooLarge,
			Message: fmt.Sprintf("the request body is %d bytes, over the limit of %d bytes", r.ContentLength, max),
			Hint:    "send a smaller listing, or ask the operator to raise the API's body limit"}
	}
	body, err := io.ReadAll(http.MaxBytesReader(c.Response(), r.Body, max))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, toError(err)
		}
		return nil, &Error{Code: CodeMalformedJSON, Message: "the request body could not be read: " + err.Error(), err: err}
	}
	return body, nil
}

// checkContentType accepts application/json and any application/*+json type, with no charset
// or charset=utf-8: the API reads UTF-8 JSON only.
func checkContentType(ct string) error {
	const hint = "send the body as JSON with the header Content-Type: application/json"
	if ct == "" {
		return &Error{Code: CodeUnsupportedMediaType, Message: "the request has no Content-Type", Hint: hint}
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return &Error{Code: CodeUnsupportedMediaType, Message: fmt.Sprintf("the Content-Type %q cannot be read: %v", ct, err), Hint: hint}
	}
	if mt != "application/json" && !(strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")) {
		return &Error{Code: CodeUnsupportedMediaType, Message: fmt.Sprintf("the API reads JSON, not %s", mt),
			Hint: hint + `; to send a listing's text as it is, put it in a JSON string: {"listing": "..."}`}
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return &Error{Code: CodeUnsupportedMediaType, Message: fmt.Sprintf("the API reads UTF-8, not charset %s", cs), Hint: hint}
	}
	return nil
}

// decodeRequest parses body as one JSON object whose members are all among fields, each given
// once. Unknown members are refused rather than ignored: a misspelt option ("tokeniser") would
// otherwise silently run with its default.
func decodeRequest(body []byte, fields []string) (*request, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, &Error{Code: CodeMalformedJSON, Message: "the request body is empty",
			Hint: `send a JSON object, such as {"listing": {"tools": [...]}}`}
	}
	if err := listing.CheckUTF8(body); err != nil {
		var ee *listing.EncodingError
		e := &Error{Code: CodeMalformedJSON, Message: "the request body is not UTF-8: " + err.Error(), Hint: "encode the body as UTF-8", err: err}
		if errors.As(err, &ee) {
			e.at(body, ee.Offset)
		}
		return nil, e
	}
	root, err := listing.ParseJSON(body)
	if err != nil {
		e := &Error{Code: CodeMalformedJSON, Message: "the request body is not valid JSON: " + err.Error(), err: err,
			Hint: "check the JSON at the line and column given (a missing comma or quote, a trailing comma)"}
		var se *listing.SyntaxError
		if errors.As(err, &se) {
			e.Message = "the request body is not valid JSON: " + se.Msg
			e.Line, e.Column = se.Line, se.Column
		}
		return nil, e
	}
	if root.Kind != listing.Object {
		return nil, (&Error{Code: CodeInvalidField, Message: fmt.Sprintf("the request body is a JSON %s; it must be an object", root.Kind),
			Hint: `send a JSON object, such as {"listing": {"tools": [...]}}`}).at(body, root.Pos)
	}
	seen := make(map[string]bool, len(root.Members))
	for _, m := range root.Members {
		if !slices.Contains(fields, m.Key) {
			return nil, (&Error{Code: CodeUnknownField, Pointer: pointer(m.Key),
				Message: fmt.Sprintf("unknown member %q", m.Key),
				Hint:    "this endpoint takes: " + strings.Join(fields, ", ") + " (see GET /api/v1/openapi.json)"}).at(body, m.KeyPos)
		}
		if seen[m.Key] {
			return nil, (&Error{Code: CodeDuplicateField, Pointer: pointer(m.Key),
				Message: fmt.Sprintf("member %q is given twice", m.Key), Hint: "give each member once"}).at(body, m.KeyPos)
		}
		seen[m.Key] = true
	}
	return &request{src: body, root: root}, nil
}

var pointerEscape = strings.NewReplacer("~", "~0", "/", "~1")

// pointer returns the JSON pointer of a member.
func pointer(key string) string { return "/" + pointerEscape.Replace(key) }

// get returns a member, or nil when it is absent or null (null means "the default").
func (r *request) get(key string) *listing.Value {
	v := r.root.Get(key)
	if v == nil || v.Kind == listing.Null {
		return nil
	}
	return v
}

func (r *request) invalid(key string, v *listing.Value, hint, format string, args ...any) *Error {
	return (&Error{Code: CodeInvalidField, Field: key, Pointer: pointer(key), Message: fmt.Sprintf(format, args...), Hint: hint}).at(r.src, v.Pos)
}

// str returns a string member, def when absent. A non-empty allowed list names its values.
func (r *request) str(key, def string, allowed ...string) (string, error) {
	v := r.get(key)
	if v == nil {
		return def, nil
	}
	if v.Kind != listing.String {
		return "", r.invalid(key, v, "", "%q must be a string, not a %s", key, v.Kind)
	}
	if len(allowed) > 0 && !slices.Contains(allowed, v.Str) {
		return "", r.invalid(key, v, "use one of "+strings.Join(allowed, ", "), "unknown %s %q", key, v.Str)
	}
	return v.Str, nil
}

// integer returns an integer member at least min, def when absent.
func (r *request) integer(key string, def, min int) (int, error) {
	v := r.get(key)
	if v == nil {
		return def, nil
	}
	if v.Kind != listing.Number {
		return 0, r.invalid(key, v, "", "%q must be a number, not a %s", key, v.Kind)
	}
	n, err := strconv.Atoi(v.Str)
	if err != nil {
		return 0, r.invalid(key, v, fmt.Sprintf("give a whole number of at least %d", min), "%q must be a whole number, not %s", key, v.Str)
	}
	if n < min {
		return 0, r.invalid(key, v, fmt.Sprintf("give a whole number of at least %d", min), "%q is %d; it must be at least %d", key, n, min)
	}
	return n, nil
}

// boolean returns a boolean member, false when absent.
func (r *request) boolean(key string) (bool, error) {
	v := r.get(key)
	if v == nil {
		return false, nil
	}
	if v.Kind != listing.Bool {
		return false, r.invalid(key, v, "use true or false", "%q must be true or false, not a %s", key, v.Kind)
	}
	return v.Bool, nil
}

// document is a JSON document sent inside the request: as a JSON value or as text in a string.
type document struct {
	field string
	// src is the text to parse. For a JSON value it is the request body up to the value's end
	// with everything before the value blanked (each character a space, newlines kept), so that
	// the positions of what is parsed from it are the line and column in the request body.
	src    []byte
	text   bool // sent as a JSON string
	exact  []byte
	origin int // the value's position in the request body
}

// doc returns member v (named field in messages) as a document.
func (r *request) doc(field string, v *listing.Value) (*document, error) {
	switch v.Kind {
	case listing.String:
		return &document{field: field, src: []byte(v.Str), exact: []byte(v.Str), text: true, origin: v.Pos}, nil
	case listing.Object, listing.Array:
		end := valueEnd(r.src, v.Pos)
		src := make([]byte, 0, end)
		for _, c := range string(r.src[:v.Pos]) {
			if c == '\n' {
				src = append(src, '\n')
			} else {
				src = append(src, ' ')
			}
		}
		blank := len(src)
		src = append(src, r.src[v.Pos:end]...)
		return &document{field: field, src: src, exact: src[blank:], origin: v.Pos}, nil
	}
	return nil, (&Error{Code: CodeInvalidField, Field: field, Pointer: "/" + field,
		Message: fmt.Sprintf("%q must be a JSON object or array, or a string holding its text; got a %s", field, v.Kind),
		Hint:    `send the listing itself ("listing": {"tools": [...]}) or its text ("listing": "{\"tools\": ...}")`}).at(r.src, v.Pos)
}

// valueEnd returns the offset just past the object or array that starts at pos. src is known
// to be valid JSON (ParseJSON accepted it), so only strings need care: brackets inside them
// do not count.
func valueEnd(src []byte, pos int) int {
	depth := 0
	for i := pos; i < len(src); i++ {
		switch src[i] {
		case '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(src)
}

// listingOf parses member key as a listing; required says whether it may be absent (nil, nil).
// With universal, text has its line endings translated as Python's text mode does, as the CLI
// does before the reference's checks.
func (r *request) listingOf(key, name string, lim listing.Limits, required, universal bool) (*listing.Listing, error) {
	v := r.get(key)
	if v == nil {
		if !required {
			return nil, nil
		}
		return nil, &Error{Code: CodeMissingField, Field: key, Pointer: pointer(key),
			Message: fmt.Sprintf("the request has no %q", key),
			Hint:    fmt.Sprintf(`send the listing as "%s": a tools/list response or result, an array of tools, one tool, or their text`, key)}
	}
	return r.parseListing(key, v, name, lim, universal)
}

func (r *request) parseListing(field string, v *listing.Value, name string, lim listing.Limits, universal bool) (*listing.Listing, error) {
	d, err := r.doc(field, v)
	if err != nil {
		return nil, err
	}
	src := d.src
	if d.text && universal {
		src = listing.UniversalNewlines(src)
	}
	l, err := listing.Parse(src, listing.Options{Name: name, Limits: lim})
	if err != nil {
		return nil, listingError(err, field, src)
	}
	if ptr, at := tooDeep(l.Doc, maxDepth); at != nil {
		return nil, (&Error{Code: CodeTooLarge, Field: field, Pointer: ptr,
			Message: fmt.Sprintf("%s nests deeper than %d levels", field, maxDepth),
			Hint:    "real tool listings nest a dozen levels or so; flatten the schema (use $defs and $ref)"}).at(src, at.Pos)
	}
	return l, nil
}

// maxDepth bounds the nesting of a listing. The parser stops at listing.MaxDepth (10000), but
// pretty output indents every level, so a deep listing costs memory quadratic in its depth;
// real listings nest about 15 levels, and lint compiles schemas to 64 levels only.
const maxDepth = 64

// tooDeep returns the pointer and value of the first value nested deeper than max, if any.
// The pointer is built on the way back out, so that the common case allocates nothing.
func tooDeep(v *listing.Value, max int) (string, *listing.Value) {
	if v.Kind != listing.Object && v.Kind != listing.Array {
		return "", nil
	}
	if max == 0 {
		return "", v
	}
	for i, it := range v.Items {
		if p, at := tooDeep(it, max-1); at != nil {
			return "/" + strconv.Itoa(i) + p, at
		}
	}
	for _, m := range v.Members {
		if p, at := tooDeep(m.Value, max-1); at != nil {
			return pointer(m.Key) + p, at
		}
	}
	return "", nil
}

// tasksOf parses member key as a task file (nil when absent).
func (r *request) tasksOf(key string) ([]selection.Task, error) {
	v := r.get(key)
	if v == nil {
		return nil, nil
	}
	d, err := r.doc(key, v)
	if err != nil {
		return nil, err
	}
	src := d.exact
	if d.text {
		src = listing.UniversalNewlines(src)
	}
	tasks, err := selection.ParseTasks(src, false)
	if err != nil {
		e := tasksError(err, key)
		var se *listing.SyntaxError
		if errors.As(err, &se) && d.text {
			e.Line, e.Column = se.Line, se.Column
		}
		return nil, e
	}
	return tasks, nil
}
