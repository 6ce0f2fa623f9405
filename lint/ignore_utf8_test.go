package lint

import (
	"strings"
	"testing"
)

func TestParseIgnoresRefusesBadUTF8(t *testing.T) {
	_, err := ParseIgnores([]byte("[{\"rule\": \"x\", \"reason\": \"bad \xff byte\"}]"))
	if err == nil || !strings.Contains(err.Error(), "ignore file") {
		t.Errorf("ParseIgnores of invalid UTF-8: %v, want an error naming the ignore file", err)
	}
}
