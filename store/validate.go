package store

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits on what a workspace holds. They keep one request from filling the database and keep
// names readable; each error says which limit was hit.
const (
	MaxTitle      = 200      // characters
	MaxAuthor     = 100      // characters
	MaxMessage    = 2000     // characters
	MaxName       = 100      // characters (revision names)
	MaxLabel      = 200      // characters (run labels)
	MaxStatus     = 40       // characters (run status)
	MaxOpsPerEdit = 1000     // ops in one edit
	MaxTasks      = 4 << 20  // bytes of a task file
	MaxRunMeta    = 64 << 10 // bytes of a run's metadata
	MaxRunBody    = 32 << 20 // bytes of a run's body
	MaxMeta       = 1 << 20  // bytes of one workspace metadata document
	MaxMetaKey    = 64       // characters of a metadata key
	MaxUndoSteps  = 200      // steps one person can undo on one workspace
)

// CheckText checks a short text field: valid UTF-8, no control characters except (in messages)
// newlines and tabs, at most max characters. An empty value is allowed unless required.
func CheckText(op, what, s string, max int, required, multiline bool) error {
	if required && strings.TrimSpace(s) == "" {
		return Errorf(Invalid, op, "the %s is empty; give a %s", what, what)
	}
	if !utf8.ValidString(s) {
		return Errorf(Invalid, op, "the %s is not valid UTF-8", what)
	}
	if n := utf8.RuneCountInString(s); n > max {
		return Errorf(Invalid, op, "the %s is %d characters long; the limit is %d", what, n, max)
	}
	for _, r := range s {
		if r < 0x20 && !(multiline && (r == '\n' || r == '\t')) || r >= 0x7f && r <= 0x9f {
			return Errorf(Invalid, op, "the %s holds the control character %U; remove it", what, r)
		}
		// Bidirectional overrides and isolates make a title or name display as other text.
		if r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
			return Errorf(Invalid, op, "the %s holds the bidirectional control %U, which makes it display as other text; remove it", what, r)
		}
	}
	return nil
}

// CheckListingText checks text taken from a possibly hostile listing (a tool's name, a JSON
// pointer into a tool): valid UTF-8 and at most max characters. Control and bidirectional
// characters are allowed: they are the listing's, and whoever shows the text cleans it. (A
// hostile parameter "path\u202e" is what a reviewer most needs to comment on.)
func CheckListingText(op, what, s string, max int) error {
	if !utf8.ValidString(s) {
		return Errorf(Invalid, op, "the %s is not valid UTF-8", what)
	}
	if n := utf8.RuneCountInString(s); n > max {
		return Errorf(Invalid, op, "the %s is %d characters long; the limit is %d", what, n, max)
	}
	return nil
}

// CheckJSON checks that b is one JSON value of at most max bytes.
func CheckJSON(op, what string, b []byte, max int, required bool) error {
	if len(b) == 0 {
		if required {
			return Errorf(Invalid, op, "the %s is empty; give a JSON value", what)
		}
		return nil
	}
	if len(b) > max {
		return Errorf(Invalid, op, "the %s is %d bytes; the limit is %d", what, len(b), max)
	}
	if !json.Valid(b) {
		var v any
		err := json.Unmarshal(b, &v)
		return &Error{Kind: Invalid, Op: op, Msg: fmt.Sprintf("the %s is not valid JSON", what), Err: err}
	}
	return nil
}

// Micros is how the stores keep times: microseconds since 1970 UTC, exact in both databases.
func Micros(t time.Time) int64 { return t.UnixMicro() }

// FromMicros is the inverse of Micros.
func FromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

// Now is time.Now at the precision the stores keep, so values round-trip unchanged.
func Now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }
