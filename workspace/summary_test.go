package workspace

import (
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

func TestSummary(t *testing.T) {
	l, err := listing.Parse([]byte(lend), listing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	str := listing.NewString
	long := strings.Repeat("n", 5000)
	tests := []struct {
		name string
		ops  []listing.Op
		want string
	}{
		{"description", []listing.Op{{Kind: listing.OpSet, Path: "/tools/1/description", Value: str("x")}}, "description of books_get"},
		{"annotation", []listing.Op{{Kind: listing.OpSet, Path: "/tools/0/annotations/destructiveHint", Value: listing.NewBool(true)}}, "annotations.destructiveHint of loans_renew"},
		{"cleared", []listing.Op{{Kind: listing.OpRemove, Path: "/tools/0/title"}}, "removed title of loans_renew"},
		{"renamed", []listing.Op{{Kind: listing.OpSet, Path: "/tools/0/name", Value: str("renew")}}, "renamed loans_renew to renew"},
		{"added", []listing.Op{{Kind: listing.OpInsert, Path: "/tools/-", Value: listing.NewObject(listing.Member{Key: "name", Value: str("new_tool")})}}, "added tool new_tool"},
		{"removed", []listing.Op{{Kind: listing.OpRemove, Path: "/tools/1"}}, "removed tool books_get"},
		{"moved", []listing.Op{{Kind: listing.OpMove, Path: "/tools", From: 1, To: 0}}, "moved books_get"},
		{"one tool", []listing.Op{{Kind: listing.OpSet, Path: "/tools/1/title", Value: str("a")}, {Kind: listing.OpSet, Path: "/tools/1/description", Value: str("b")}}, "2 changes to books_get"},
		{"two tools", []listing.Op{{Kind: listing.OpSet, Path: "/tools/0/name", Value: str("a")}, {Kind: listing.OpSet, Path: "/tools/1/name", Value: str("b")}}, "2 tools changed"},
		{"whole", []listing.Op{{Kind: listing.OpSet, Path: "/tools", Value: listing.NewArray()}}, "1 change to the tools"},
		{"a tool past the end", []listing.Op{{Kind: listing.OpSet, Path: "/tools/7/description", Value: str("x")}}, "description of tool 8"},
		{"a long name, cut", []listing.Op{{Kind: listing.OpSet, Path: "/tools/0/name", Value: str(long + "\n")}}, "renamed loans_renew to " + strings.Repeat("n", maxSummary-len("renamed loans_renew to ")-1) + "…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Summary(l, tc.ops); got != tc.want {
				t.Errorf("Summary = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRevisionSummary(t *testing.T) {
	tests := []struct {
		rev  store.Revision
		want string
	}{
		{store.Revision{Kind: store.KindEdit, Message: "description of a"}, "description of a"},
		{store.Revision{Kind: store.KindEdit, Field: "/tools/2/description"}, "description of tool 3"},
		{store.Revision{Kind: store.KindRestore, RestoredFrom: 4}, "restored revision 4"},
		{store.Revision{Kind: store.KindTasks, Field: "/3/expect"}, "expected tool of task 4"},
		{store.Revision{Kind: store.KindEdit}, ""},
		{store.Revision{Kind: store.KindImport}, ""},
	}
	for _, tc := range tests {
		if got := RevisionSummary(tc.rev); got != tc.want {
			t.Errorf("RevisionSummary(%+v) = %q, want %q", tc.rev, got, tc.want)
		}
	}
}
