package listing

import (
	"fmt"
	"unicode/utf8"
)

// EncodingError is input that is not valid UTF-8, worded as Python's codec words it.
type EncodingError struct {
	Offset int // byte offset of the first bad byte
	msg    string
}

func (e *EncodingError) Error() string { return e.msg }

// CheckUTF8 returns nil when src is valid UTF-8, or an *EncodingError naming the first bad byte.
func CheckUTF8(src []byte) error {
	if utf8.Valid(src) {
		return nil
	}
	for i := 0; i < len(src); {
		c := src[i]
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(src[i:])
		if r != utf8.RuneError || size > 1 {
			i += size
			continue
		}
		return utf8Error(src, i)
	}
	return nil
}

// utf8Error describes the bad sequence at i the way CPython's UTF-8 decoder does.
func utf8Error(src []byte, i int) error {
	c := src[i]
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c >= 0xE0 && c <= 0xEF:
		need = 2
		if c == 0xE0 {
			lo = 0xA0
		} else if c == 0xED {
			hi = 0x9F
		}
	case c >= 0xF0 && c <= 0xF4:
		need = 3
		if c == 0xF0 {
			lo = 0x90
		} else if c == 0xF4 {
			hi = 0x8F
		}
	default:
		return &EncodingError{i, fmt.Sprintf("'utf-8' codec can't decode byte 0x%02x in position %d: invalid start byte", c, i)}
	}
	k := 1 // bytes of the sequence that are valid so far
	for ; k <= need; k++ {
		if i+k >= len(src) {
			return rangeError(src, i, k, "unexpected end of data")
		}
		b := src[i+k]
		if k == 1 && (b < lo || b > hi) || k > 1 && (b < 0x80 || b > 0xBF) {
			return rangeError(src, i, k, "invalid continuation byte")
		}
	}
	return &EncodingError{i, fmt.Sprintf("'utf-8' codec can't decode byte 0x%02x in position %d: invalid start byte", c, i)}
}

func rangeError(src []byte, i, k int, why string) error {
	if k == 1 {
		return &EncodingError{i, fmt.Sprintf("'utf-8' codec can't decode byte 0x%02x in position %d: %s", src[i], i, why)}
	}
	return &EncodingError{i, fmt.Sprintf("'utf-8' codec can't decode bytes in position %d-%d: %s", i, i+k-1, why)}
}

// UniversalNewlines turns "\r\n" and lone "\r" into "\n", as Python's text mode does when it
// reads a file; positions in error messages then count as Python counts them.
func UniversalNewlines(src []byte) []byte {
	n := 0
	for _, c := range src {
		if c == '\r' {
			n++
		}
	}
	if n == 0 {
		return src
	}
	out := make([]byte, 0, len(src))
	for i := 0; i < len(src); i++ {
		if src[i] == '\r' {
			out = append(out, '\n')
			if i+1 < len(src) && src[i+1] == '\n' {
				i++
			}
			continue
		}
		out = append(out, src[i])
	}
	return out
}
