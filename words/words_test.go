package words

import (
	"reflect"
	"testing"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"get_data", []string{"get", "data"}},
		{"getHTTPStatus", []string{"get", "http", "statu"}}, // the reference folds "status" too
		{"HTTPServer2Go", []string{"http", "server", "2", "go"}},
		{"list-user.tickets", []string{"list", "user", "ticket"}},
		{"Tickets class status this", []string{"ticket", "class", "statu", "this"}},
		{"ABc aB", []string{"a", "bc", "a", "b"}},
		{"café naïve 日本", []string{"caf", "na", "ve"}},
		{"yours its", []string{"your", "its"}},
		{"", nil},
	}
	for _, tt := range tests {
		if got := Tokens(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Tokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestContentDropsStopWords(t *testing.T) {
	got := Content("Find the books of a member, and yours")
	want := map[string]bool{"find": true, "book": true, "member": true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Content = %v, want %v", got, want)
	}
}
