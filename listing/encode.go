package listing

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Marshal encodes v as written: members in source order (repeats kept), numbers as spelled, text
// unescaped except where JSON requires it. An indent of "" gives compact JSON.
func Marshal(v *Value, indent string) []byte {
	var b bytes.Buffer
	writeValue(&b, v, indent, 0)
	return b.Bytes()
}

func writeValue(b *bytes.Buffer, v *Value, indent string, depth int) {
	if v == nil {
		b.WriteString("null")
		return
	}
	switch v.Kind {
	case Null:
		b.WriteString("null")
	case Bool:
		if v.Bool {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case Number:
		b.WriteString(v.Str)
	case String:
		writeString(b, v.Str, false)
	case Array:
		if len(v.Items) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, it := range v.Items {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(b, indent, depth+1)
			writeValue(b, it, indent, depth+1)
		}
		newline(b, indent, depth)
		b.WriteByte(']')
	case Object:
		if len(v.Members) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, m := range v.Members {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(b, indent, depth+1)
			writeString(b, m.Key, false)
			b.WriteByte(':')
			if indent != "" {
				b.WriteByte(' ')
			}
			writeValue(b, m.Value, indent, depth+1)
		}
		newline(b, indent, depth)
		b.WriteByte('}')
	}
}

func newline(b *bytes.Buffer, indent string, depth int) {
	if indent == "" {
		return
	}
	b.WriteByte('\n')
	for range depth {
		b.WriteString(indent)
	}
}

const hexDigits = "0123456789abcdef"

// writeString writes s as a JSON string. With ascii, every non-ASCII character is escaped as
// Python's ensure_ascii does; without, only quotes, backslashes and control characters are. A
// lone surrogate kept in WTF-8 form is always written as an escape.
func writeString(b *bytes.Buffer, s string, ascii bool) {
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && !(ascii && c == 0x7F) {
				i++
				continue
			}
			b.WriteString(s[start:i])
			switch c {
			case '"', '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			case '\b':
				b.WriteString(`\b`)
			case '\f':
				b.WriteString(`\f`)
			default:
				writeU(b, rune(c))
			}
			i++
			start = i
			continue
		}
		if c == 0xED && i+2 < len(s) && s[i+1] >= 0xA0 && s[i+1] <= 0xBF {
			b.WriteString(s[start:i])
			writeU(b, rune(c&0x0F)<<12|rune(s[i+1]&0x3F)<<6|rune(s[i+2]&0x3F))
			i += 3
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if ascii {
			b.WriteString(s[start:i])
			if r >= 0x10000 {
				r -= 0x10000
				writeU(b, 0xD800+(r>>10))
				writeU(b, 0xDC00+(r&0x3FF))
			} else {
				writeU(b, r)
			}
			start = i + size
		}
		i += size
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}

func writeU(b *bytes.Buffer, r rune) {
	b.WriteString(`\u`)
	b.WriteByte(hexDigits[r>>12&0xF])
	b.WriteByte(hexDigits[r>>8&0xF])
	b.WriteByte(hexDigits[r>>4&0xF])
	b.WriteByte(hexDigits[r&0xF])
}

// PythonJSON encodes v as Python's json.dumps does after json.loads read it: a repeated key
// appears once, where it first stood, with its last value; integers lose a minus on zero; other
// numbers are spelled as Python's repr spells floats. Compact uses separators (",", ":") and
// keeps non-ASCII text; otherwise the defaults apply (", ", ": ", ensure_ascii).
func PythonJSON(v *Value, compact bool) []byte {
	var b bytes.Buffer
	writePython(&b, v, compact)
	return b.Bytes()
}

func writePython(b *bytes.Buffer, v *Value, compact bool) {
	sep, colon := ", ", ": "
	if compact {
		sep, colon = ",", ":"
	}
	switch v.Kind {
	case Number:
		b.WriteString(PythonNumber(v.Str))
	case String:
		writeString(b, v.Str, !compact)
	case Array:
		b.WriteByte('[')
		for i, it := range v.Items {
			if i > 0 {
				b.WriteString(sep)
			}
			writePython(b, it, compact)
		}
		b.WriteByte(']')
	case Object:
		b.WriteByte('{')
		for i, m := range v.Fields() {
			if i > 0 {
				b.WriteString(sep)
			}
			writeString(b, m.Key, !compact)
			b.WriteString(colon)
			writePython(b, m.Value, compact)
		}
		b.WriteByte('}')
	default:
		writeValue(b, v, "", 0)
	}
}

// PythonNumber spells a JSON number literal as Python's json.dumps writes it back after
// json.loads: integers keep their digits, everything else becomes a float's repr.
func PythonNumber(lit string) string {
	switch lit {
	case "NaN", "Infinity", "-Infinity":
		return lit
	}
	if !strings.ContainsAny(lit, ".eE") {
		if strings.Trim(lit, "-0") == "" {
			return "0"
		}
		return lit
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return lit
	}
	return PythonFloat(f)
}

// PythonFloat formats f as Python's repr(float) does: the shortest digits that read back the
// same, in positional form from 1e-4 up to 1e16 and in exponent form outside that range.
func PythonFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case math.IsNaN(f):
		return "NaN"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // -d.ddde±XX
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	e := strings.IndexByte(s, 'e')
	digits := strings.Replace(s[:e], ".", "", 1)
	exp, _ := strconv.Atoi(s[e+1:])
	var out string
	if exp < -4 || exp >= 16 {
		mant := digits[:1]
		if len(digits) > 1 {
			mant += "." + digits[1:]
		}
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		es := strconv.Itoa(exp)
		if len(es) < 2 {
			es = "0" + es
		}
		out = mant + "e" + sign + es
	} else if exp < 0 {
		out = "0." + strings.Repeat("0", -exp-1) + digits
	} else if exp+1 >= len(digits) {
		out = digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
	} else {
		out = digits[:exp+1] + "." + digits[exp+1:]
	}
	if neg {
		return "-" + out
	}
	return out
}

// PythonRepr is Python's repr() of a string, which the reference prints for names it rejects.
func PythonRepr(s string) string {
	quote := byte('\'')
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		quote = '"'
	}
	var b strings.Builder
	b.WriteByte(quote)
	for _, r := range s {
		switch {
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < ' ' || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x7f:
			b.WriteRune(r)
		case pythonPrintable(r):
			b.WriteRune(r)
		case r <= 0xff:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte(quote)
	return b.String()
}
