package taskformat

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tool-workbench/workbench/listing"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustValue(t testing.TB, src string) *listing.Value {
	t.Helper()
	v, err := listing.ParseJSON([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func casesJSON(t testing.TB, cs []Case) string {
	t.Helper()
	b, err := json.MarshalIndent(cs, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func lossFields(ls []Loss) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.Field
	}
	return out
}

func lossLines(title string, ls []Loss) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d):\n", title, len(ls))
	for _, l := range ls {
		b.WriteString("  " + l.String() + "\n")
	}
	return b.String()
}

// checkRead runs one row of a read table: the error says wantErr, or (without one) the read
// reports the loss fields losses and its first case is expect (as parts shows it).
func checkRead(t *testing.T, f Format, src, wantErr string, losses []string, expect string) {
	t.Helper()
	cases, got, err := f.Read([]byte(src))
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("err = %v, want it to say %q", err, wantErr)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if fields := lossFields(got); !slices.Equal(fields, losses) {
		t.Errorf("losses %v, want %v: %v", fields, losses, got)
	}
	if p := parts(cases[0]); p != expect {
		t.Errorf("read %s, want %s", p, expect)
	}
}

// checkWriteLosses writes one case and checks the loss fields the write reports.
func checkWriteLosses(t *testing.T, f Format, c Case, losses []string) []byte {
	t.Helper()
	out, got, err := f.Write([]Case{c})
	if err != nil {
		t.Fatal(err)
	}
	if fields := lossFields(got); !slices.Equal(fields, losses) {
		t.Errorf("losses %v, want %v: %v", fields, losses, got)
	}
	return out
}

// parts shows what of a case the loss tables check.
func parts(c Case) string {
	var b strings.Builder
	b.WriteString("expect=[")
	for i, e := range c.Expect {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(e.Tool)
		if e.Args != nil {
			b.Write(listing.Marshal(e.Args, ""))
		}
	}
	b.WriteString("] reject=[" + strings.Join(c.Reject, " ") + "]")
	if c.AnyOf {
		b.WriteString(" anyOf")
	}
	if c.None {
		return b.String() + " none=true"
	}
	return b.String() + " none=false"
}
