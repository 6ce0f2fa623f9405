package web

import (
	"encoding/json"
	"testing"
)

func TestIsJSONNumber(t *testing.T) {
	for s, want := range map[string]bool{"0": true, "2.5": true, "-3": true, "1e400": true, " 7 ": true,
		"NaN": false, "Infinity": false, "-Infinity": false, "Inf": false, "0x1p3": false, "1,2": false, "": false, "\"1\"": false, "01": false} {
		if got := isJSONNumber(s); got != want {
			t.Errorf("isJSONNumber(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzIsJSONNumber: a value isJSONNumber accepts is one encoding/json reads as a number, so the
// store can always write it.
func FuzzIsJSONNumber(f *testing.F) {
	for _, s := range []string{"0", "1e400", "NaN", "-0.5e-3", "0x10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !isJSONNumber(s) {
			return
		}
		var n json.Number
		if err := json.Unmarshal([]byte(s), &n); err != nil {
			t.Errorf("isJSONNumber(%q) but encoding/json refuses it: %v", s, err)
		}
	})
}
