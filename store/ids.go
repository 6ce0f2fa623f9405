package store

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// NewID returns 128 random bits as 32 lowercase hex digits: workspace, run and share-link IDs,
// share-link and session tokens. Unguessable, so an ID can be a capability.
func NewID() string {
	var b [16]byte
	// crypto/rand.Read never fails on supported systems (it panics itself if it cannot).
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ParseID checks that s has the form NewID gives (32 lowercase hex digits) and returns it. It
// keeps hostile or mistyped text out of queries and messages.
func ParseID(what, s string) (string, error) {
	if len(s) != 32 {
		return "", Errorf(Invalid, "read "+what, "%s is %d characters long; a %s is 32 lowercase hex digits", quoteShort(s), len(s), what)
	}
	for i, r := range s {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return "", Errorf(Invalid, "read "+what, "%s has %q at position %d; a %s is 32 lowercase hex digits", quoteShort(s), r, i+1, what)
		}
	}
	return s, nil
}

// TokenHash is what the store keeps of a share-link or session token: a database that leaks
// does not leak capabilities.
func TokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// quoteShort quotes s for a message, cut to a readable length.
func quoteShort(s string) string {
	const max = 40
	if len(s) > max {
		return fmt.Sprintf("%q…", s[:max])
	}
	return fmt.Sprintf("%q", s)
}
