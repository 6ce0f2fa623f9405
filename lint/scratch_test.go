package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tool-workbench/workbench/listing"
)

func TestScratch(t *testing.T) {
	files, _ := filepath.Glob("../../shared/listings/real/*.json")
	more, _ := filepath.Glob("../../shared/reference/fixtures/*-tools.json")
	files = append(files, more...)
	for _, f := range files {
		src, _ := os.ReadFile(f)
		l, err := listing.Parse(src, listing.Options{Name: f})
		if err != nil {
			t.Fatal(err)
		}
		lt := New(Config{})
		for _, fd := range lt.Lint(l) {
			fmt.Printf("%s\t%s\t%s\t%s\t%s\t%d:%d\n", filepath.Base(f), fd.Rule, fd.Tool, fd.Pointer, fd.Message, fd.Line, fd.Column)
		}
	}
}
