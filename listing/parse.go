package listing

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// MaxDepth bounds the nesting of arrays and objects; deeper input is refused with a SyntaxError
// rather than risking the stack.
const MaxDepth = 10000

// PythonMaxDepth is the deepest nesting of arrays and objects that the reference checker's
// Python (3.11, recursion limit 1000, less the frames it calls json from) decodes; one more
// level and it stops with a RecursionError. Measured by running it on nested arrays and objects,
// in a listing and in a task file.
const PythonMaxDepth = 993

// Deepest is how deeply v nests arrays and objects (a scalar is 0, [] is 1), and the JSON
// pointer of its deepest array or object.
func Deepest(v *Value) (depth int, ptr string) {
	if v == nil || v.Kind != Array && v.Kind != Object {
		return 0, ""
	}
	for i, it := range v.Items {
		if d, p := Deepest(it); d > depth {
			depth, ptr = d, "/"+strconv.Itoa(i)+p
		}
	}
	for _, m := range v.Members {
		if d, p := Deepest(m.Value); d > depth {
			depth, ptr = d, JoinPointer(m.Key)+p
		}
	}
	return depth + 1, ptr
}

// SyntaxError is malformed JSON. Its message follows Python's json module word for word
// ("Expecting ',' delimiter: line 3 column 5 (char 40)"), so that the reference checker's output
// can be reproduced; Line, Column and Char count characters, not bytes, as Python does.
type SyntaxError struct {
	Msg    string
	Offset int // byte offset into the source
	Line   int // 1-based
	Column int // 1-based, in characters
	Char   int // 0-based character index
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s: line %d column %d (char %d)", e.Msg, e.Line, e.Column, e.Char)
}

func newSyntaxError(src []byte, msg string, off int) *SyntaxError {
	e := &SyntaxError{Msg: msg, Offset: off}
	e.Line, e.Column, e.Char = Position(src, off)
	return e
}

// Position converts a byte offset in src into a 1-based line, a 1-based column and a 0-based
// character index, counting characters (runes) as Python does.
func Position(src []byte, off int) (line, column, char int) {
	if off > len(src) {
		off = len(src)
	}
	line = 1
	lastNL := -1 // character index of the last newline before off
	i := 0
	for i < off {
		c := src[i]
		if c < utf8.RuneSelf {
			if c == '\n' {
				line++
				lastNL = char
			}
			i++
		} else {
			_, size := utf8.DecodeRune(src[i:])
			i += size
		}
		char++
	}
	if lastNL < 0 {
		return line, char + 1, char
	}
	return line, char - lastNL, char
}

// ParseJSON parses one JSON document, keeping member order, number literals and byte positions.
// It accepts what Python's json.loads accepts (including NaN and Infinity) and words its errors
// the same way. src must be valid UTF-8 (see CheckUTF8).
func ParseJSON(src []byte) (*Value, error) {
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		return nil, newSyntaxError(src, "Unexpected UTF-8 BOM (decode using utf-8-sig)", 0)
	}
	p := &parser{src: src}
	p.skipWS()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipWS()
	if p.pos != len(src) {
		return nil, p.fail("Extra data", p.pos)
	}
	return v, nil
}

type parser struct {
	src []byte
	pos int
}

func (p *parser) fail(msg string, off int) *SyntaxError { return newSyntaxError(p.src, msg, off) }

func (p *parser) skipWS() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) hasPrefix(s string) bool {
	return len(p.src)-p.pos >= len(s) && string(p.src[p.pos:p.pos+len(s)]) == s
}

func (p *parser) value(depth int) (*Value, error) {
	if p.pos >= len(p.src) {
		return nil, p.fail("Expecting value", p.pos)
	}
	start := p.pos
	switch p.src[p.pos] {
	case '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &Value{Kind: String, Str: s, Pos: start}, nil
	case '{':
		if depth >= MaxDepth {
			return nil, p.fail(fmt.Sprintf("Nesting deeper than %d levels", MaxDepth), start)
		}
		return p.object(depth + 1)
	case '[':
		if depth >= MaxDepth {
			return nil, p.fail(fmt.Sprintf("Nesting deeper than %d levels", MaxDepth), start)
		}
		return p.array(depth + 1)
	case 'n':
		if p.hasPrefix("null") {
			p.pos += 4
			return &Value{Kind: Null, Pos: start}, nil
		}
	case 't':
		if p.hasPrefix("true") {
			p.pos += 4
			return &Value{Kind: Bool, Bool: true, Pos: start}, nil
		}
	case 'f':
		if p.hasPrefix("false") {
			p.pos += 5
			return &Value{Kind: Bool, Pos: start}, nil
		}
	case 'N':
		if p.hasPrefix("NaN") {
			p.pos += 3
			return &Value{Kind: Number, Str: "NaN", Pos: start}, nil
		}
	case 'I':
		if p.hasPrefix("Infinity") {
			p.pos += 8
			return &Value{Kind: Number, Str: "Infinity", Pos: start}, nil
		}
	case '-':
		if p.hasPrefix("-Infinity") {
			p.pos += 9
			return &Value{Kind: Number, Str: "-Infinity", Pos: start}, nil
		}
	}
	return p.number()
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// number follows Python's scanner, including its backtracking: "1." is the number 1 followed by
// extra data.
func (p *parser) number() (*Value, error) {
	src, start := p.src, p.pos
	i := start
	if src[i] == '-' {
		i++
		if i >= len(src) {
			return nil, p.fail("Expecting value", start)
		}
	}
	switch {
	case src[i] >= '1' && src[i] <= '9':
		i++
		for i < len(src) && isDigit(src[i]) {
			i++
		}
	case src[i] == '0':
		i++
	default:
		return nil, p.fail("Expecting value", start)
	}
	if i+1 < len(src) && src[i] == '.' && isDigit(src[i+1]) {
		i += 2
		for i < len(src) && isDigit(src[i]) {
			i++
		}
	}
	if i+1 < len(src) && (src[i] == 'e' || src[i] == 'E') {
		e := i
		i++
		if i+1 < len(src) && (src[i] == '-' || src[i] == '+') {
			i++
		}
		for i < len(src) && isDigit(src[i]) {
			i++
		}
		if !isDigit(src[i-1]) {
			i = e
		}
	}
	p.pos = i
	return &Value{Kind: Number, Str: string(src[start:i]), Pos: start}, nil
}

func (p *parser) object(depth int) (*Value, error) {
	v := &Value{Kind: Object, Pos: p.pos}
	p.pos++
	p.skipWS()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		v.Members = []Member{}
		return v, nil
	}
	var seen map[string]struct{}
	for {
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return nil, p.fail("Expecting property name enclosed in double quotes", p.pos)
		}
		keyPos := p.pos
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		p.skipWS()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.fail("Expecting ':' delimiter", p.pos)
		}
		p.pos++
		p.skipWS()
		val, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		if !v.dupKeys {
			if len(v.Members) == 8 && seen == nil {
				seen = make(map[string]struct{}, 16)
				for _, m := range v.Members {
					seen[m.Key] = struct{}{}
				}
			}
			if seen != nil {
				if _, ok := seen[key]; ok {
					v.dupKeys = true
				}
				seen[key] = struct{}{}
			} else {
				for _, m := range v.Members {
					if m.Key == key {
						v.dupKeys = true
						break
					}
				}
			}
		}
		v.Members = append(v.Members, Member{Key: key, Value: val, KeyPos: keyPos})
		p.skipWS()
		if p.pos < len(p.src) && p.src[p.pos] == '}' {
			p.pos++
			return v, nil
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ',' {
			return nil, p.fail("Expecting ',' delimiter", p.pos)
		}
		p.pos++
		p.skipWS()
	}
}

func (p *parser) array(depth int) (*Value, error) {
	v := &Value{Kind: Array, Pos: p.pos, Items: []*Value{}}
	p.pos++
	p.skipWS()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		return v, nil
	}
	for {
		item, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		v.Items = append(v.Items, item)
		p.skipWS()
		if p.pos < len(p.src) && p.src[p.pos] == ']' {
			p.pos++
			return v, nil
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ',' {
			return nil, p.fail("Expecting ',' delimiter", p.pos)
		}
		p.pos++
		p.skipWS()
	}
}

// str reads a string whose opening quote is at p.pos. Escaped lone surrogates (which Python keeps
// in its strings) are kept as their three-byte WTF-8 form so that encoding writes them back.
func (p *parser) str() (string, error) {
	src := p.src
	begin := p.pos
	i := begin + 1
	// Fast path: no escapes.
	for j := i; j < len(src); j++ {
		c := src[j]
		if c == '"' {
			p.pos = j + 1
			return string(src[i:j]), nil
		}
		if c == '\\' {
			break
		}
		if c <= 0x1f {
			return "", p.fail("Invalid control character at", j)
		}
	}
	buf := make([]byte, 0, 32)
	for {
		j := i
		for ; j < len(src); j++ {
			c := src[j]
			if c == '"' || c == '\\' {
				break
			}
			if c <= 0x1f {
				return "", p.fail("Invalid control character at", j)
			}
		}
		if j >= len(src) {
			return "", p.fail("Unterminated string starting at", begin)
		}
		buf = append(buf, src[i:j]...)
		if src[j] == '"' {
			p.pos = j + 1
			return string(buf), nil
		}
		j++ // past the backslash
		if j == len(src) {
			return "", p.fail("Unterminated string starting at", begin)
		}
		c := src[j]
		if c != 'u' {
			var r byte
			switch c {
			case '"', '\\', '/':
				r = c
			case 'b':
				r = '\b'
			case 'f':
				r = '\f'
			case 'n':
				r = '\n'
			case 'r':
				r = '\r'
			case 't':
				r = '\t'
			default:
				return "", p.fail(`Invalid \escape`, j-1)
			}
			buf = append(buf, r)
			i = j + 1
			continue
		}
		hexStart := j + 1
		end := hexStart + 4
		if end >= len(src) {
			return "", p.fail(`Invalid \uXXXX escape`, j)
		}
		r, ok := hex4(src[hexStart:end])
		if !ok {
			return "", p.fail(`Invalid \uXXXX escape`, j)
		}
		if r >= 0xD800 && r <= 0xDBFF && end+6 < len(src) && src[end] == '\\' && src[end+1] == 'u' {
			r2, ok := hex4(src[end+2 : end+6])
			if !ok {
				return "", p.fail(`Invalid \uXXXX escape`, end+1)
			}
			if r2 >= 0xDC00 && r2 <= 0xDFFF {
				r = 0x10000 + (r-0xD800)<<10 + (r2 - 0xDC00)
				end += 6
			}
		}
		buf = appendRuneWTF8(buf, r)
		i = end
	}
}

func hex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

// appendRuneWTF8 appends r as UTF-8, writing a lone surrogate in the generalized (WTF-8) form that
// UTF-8 itself forbids.
func appendRuneWTF8(b []byte, r rune) []byte {
	if r >= 0xD800 && r <= 0xDFFF {
		return append(b, byte(0xE0|r>>12), byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
	}
	return utf8.AppendRune(b, r)
}

// HasLoneSurrogate reports whether s holds a lone surrogate written by an escape such as "\ud800".
func HasLoneSurrogate(s string) bool {
	for i := 0; i+2 < len(s); i++ {
		if s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF {
			return true
		}
	}
	return false
}
