package cost

import (
	"math"
	"strings"
	"testing"
)

func TestParseLimit(t *testing.T) {
	cases := []struct {
		in      string
		want    Limit
		wantErr string
	}{
		{in: "500", want: Limit{Tokens: 500, Text: "500"}},
		{in: "0", want: Limit{Text: "0"}},
		{in: " 12 ", want: Limit{Tokens: 12, Text: "12"}},
		{in: "2.5%", want: Limit{Percent: 2.5, IsPercent: true, Text: "2.5%"}},
		{in: "0%", want: Limit{IsPercent: true, Text: "0%"}},
		{in: "150%", want: Limit{Percent: 150, IsPercent: true, Text: "150%"}},
		{in: "", wantErr: `"" is not a limit: give a whole number of tokens (500) or a percentage`},
		{in: "lots", wantErr: `"lots" is not a limit`},
		{in: "1.5", wantErr: `"1.5" is not a limit: give a whole number`},
		{in: "+5", wantErr: `"+5" is not a limit`},
		{in: "5 %", wantErr: `"5 %" is not a percentage: give a number followed by %, such as 2.5%`},
		{in: "%", wantErr: `"%" is not a percentage`},
		{in: "5%%", wantErr: `"5%%" is not a percentage`},
		{in: "NaN%", wantErr: `"NaN%" is not a percentage`},
		{in: "Inf%", wantErr: `"Inf%" is not a percentage`},
		{in: "0x10%", wantErr: `"0x10%" is not a percentage`},
		{in: "1_0%", wantErr: `"1_0%" is not a percentage`},
		{in: "-3", wantErr: `"-3" is negative: give how much the listing may grow, 0 for not at all`},
		{in: "-0.5%", wantErr: `"-0.5%" is negative: give how much the listing may grow, 0% for not at all`},
		{in: "99999999999999999999", wantErr: `"99999999999999999999" is too large a number of tokens`},
		{in: "10k", wantErr: `"10k" is not a limit`},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, err := ParseLimit(c.in)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("ParseLimit(%q) = %+v, %v; want error %q", c.in, got, err, c.wantErr)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("ParseLimit(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
			}
		})
	}
}

func TestLimitCheck(t *testing.T) {
	cases := []struct {
		limit         string
		before, after int
		allowed       int
		over          bool
		msg           string
	}{
		{"100", 1000, 1100, 100, false, "within --max-increase 100"},
		{"100", 1000, 1101, 100, true, "the listing grew by 101 tokens (+10.1%), from 1,000 to 1,101, 1 token past --max-increase 100"},
		{"0", 1000, 1000, 0, false, "the listing did not grow (0 tokens, 1,000 to 1,000)"},
		{"0", 1000, 900, 0, false, "did not grow (-100 tokens"},
		{"0", 1000, 1001, 0, true, "1 token past --max-increase 0"},
		// 1% of 35,506 is 355.06: the whole tokens within it are 355.
		{"1%", 35506, 35861, 355, false, "within --max-increase 1% (355 tokens of the baseline's 35,506)"},
		{"1%", 35506, 35862, 355, true, "1 token past --max-increase 1% (355 tokens of the baseline's 35,506)"},
		{"10%", 0, 5, 0, true, "grew by 5 tokens (new)"},
		{"0.5%", 200, 201, 1, false, "within"},
		{"1e300%", 1 << 40, 1 << 41, math.MaxInt64 / 2, false, "within"},
	}
	for _, c := range cases {
		t.Run(c.limit, func(t *testing.T) {
			l, err := ParseLimit(c.limit)
			if err != nil {
				t.Fatal(err)
			}
			g := &Gate{Before: Measure{Tokens: c.before}, After: Measure{Tokens: c.after}}
			v := g.Check(l)
			if v.Allowed != c.allowed || v.Over != c.over || !strings.Contains(v.Message, c.msg) {
				t.Errorf("%d to %d against %s: allowed %d, over %v, %q; want %d, %v, containing %q",
					c.before, c.after, c.limit, v.Allowed, v.Over, v.Message, c.allowed, c.over, c.msg)
			}
		})
	}
}

func TestGateKinds(t *testing.T) {
	m := func(tok int) Measure { return Measure{Tokens: tok, Bytes: tok * 4} }
	base := Report{Tokenizer: "o200k_base", Render: "compact", Total: m(100), Tools: []ToolCost{
		{Index: 0, Name: "same", Measure: m(10)},
		{Index: 1, Name: "grows", Measure: m(10)},
		{Index: 2, Name: "shrinks", Measure: m(30)},
		{Index: 3, Name: "goes", Measure: m(20)},
		{Index: 4, Name: "bytes only", Measure: m(5)},
		{Index: 5, Name: "dup", Measure: m(7)},
	}}
	head := Report{Tokenizer: "o200k_base", Render: "compact", Total: m(120), Tools: []ToolCost{
		{Index: 0, Name: "comes", Measure: m(40)},
		{Index: 1, Name: "same", Measure: m(10)},
		{Index: 2, Name: "grows", Measure: m(25)},
		{Index: 3, Name: "shrinks", Measure: m(20)},
		{Index: 4, Name: "bytes only", Measure: Measure{Tokens: 5, Bytes: 21}},
		{Index: 5, Name: "dup", Measure: m(7)},
		{Index: 6, Name: "dup", Measure: m(9)},
	}}
	if _, err := head.Gate(); err == nil {
		t.Fatal("Gate without a baseline: no error")
	}
	if err := head.Compare(base); err != nil {
		t.Fatal(err)
	}
	g, err := head.Gate()
	if err != nil {
		t.Fatal(err)
	}
	if g.Added != 1 || g.Removed != 1 || g.Grown != 1 || g.Shrunk != 1 || g.Unchanged != 3 {
		t.Errorf("counts: %d added, %d removed, %d grown, %d shrunk, %d unchanged; want 1, 1, 1, 1, 3",
			g.Added, g.Removed, g.Grown, g.Shrunk, g.Unchanged)
	}
	var got []string
	for _, c := range g.Changes {
		got = append(got, c.Status+" "+c.Name)
	}
	// The largest change first; equal changes by name.
	want := "added comes,removed goes,grown grows,shrunk shrinks"
	if strings.Join(got, ",") != want {
		t.Errorf("changes %v, want %s", got, want)
	}
	for _, c := range g.Changes {
		if wantIndex := map[string]int{"comes": 0, "goes": -1, "grows": 2, "shrinks": 3}[c.Name]; c.Index != wantIndex {
			t.Errorf("%s: index %d, want %d", c.Name, c.Index, wantIndex)
		}
	}
	if g.Before.Tokens != 100 || g.After.Tokens != 120 {
		t.Errorf("totals %d to %d, want 100 to 120", g.Before.Tokens, g.After.Tokens)
	}
}

func TestGateNumbers(t *testing.T) {
	cases := []struct{ got, want string }{
		{Group(0), "0"}, {Group(999), "999"}, {Group(1000), "1,000"}, {Group(-35506), "-35,506"}, {Group(1234567), "1,234,567"},
		{Signed(5), "+5"}, {Signed(-1204), "-1,204"}, {Signed(0), "0"},
		{Percent(0, 0), "0%"}, {Percent(5, 0), "new"}, {Percent(-10, 10), "-100.0%"}, {Percent(1, 1000), "+0.10%"}, {Percent(532, 34974), "+1.5%"}, {Percent(50, 100), "+50.0%"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// FuzzParseLimit: any text is refused with a message or read as a limit that allows a growth of
// zero or more tokens on any baseline.
func FuzzParseLimit(f *testing.F) {
	for _, s := range []string{"500", "2.5%", "-1", "1e308%", "NaN%", "%", "0x1p3%", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLimit(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty message")
			}
			return
		}
		for _, before := range []int{0, 1, 35506, math.MaxInt32} {
			if a := l.Allowed(before); a < 0 {
				t.Fatalf("%q allows %d on %d", s, a, before)
			}
		}
	})
}

// FuzzGateGitHub: whatever a tool's name and the file's name hold, --format github writes only
// its own commands (each line one command, or its plain note), each with only its own
// properties.
func FuzzGateGitHub(f *testing.F) {
	f.Add("search\n::error::x", "tools.json", 5)
	f.Add("a,title=b:c%0A", "x,y:z.json", -3)
	f.Add("\r::warning file=x::y", "\n::error::", 0)
	f.Fuzz(func(t *testing.T, name, source string, delta int) {
		g := &Gate{Before: Measure{Tokens: 100}, After: Measure{Tokens: 100 + delta}, Grown: 1,
			Changes: []GateChange{{Name: name, Status: "grown", Index: 0, Before: 10, After: 10 + delta}}}
		v := g.Check(Limit{Tokens: 0, Text: "0"})
		var b strings.Builder
		if err := WriteGateGitHub(&b, g, GateOptions{Source: source, Verdict: &v, Line: func(int) int { return 3 }}); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		want := 2
		if v.Over {
			want = 3
		}
		if len(lines) != want {
			t.Fatalf("%d lines, want %d:\n%s", len(lines), want, b.String())
		}
		for _, ln := range lines {
			cmd, rest, ok := strings.Cut(ln, " ")
			if !ok || (cmd != "::notice" && cmd != "::error") {
				t.Fatalf("not one of the gate's commands: %q", ln)
			}
			props, _, ok := strings.Cut(rest, "::")
			if !ok {
				t.Fatalf("no message: %q", ln)
			}
			seen := map[string]bool{}
			for _, p := range strings.Split(props, ",") {
				k, val, _ := strings.Cut(p, "=")
				if (k != "file" && k != "line" && k != "title") || seen[k] {
					t.Fatalf("property %q in %q", k, ln)
				}
				seen[k] = true
				// Each value reads back as what was written: the file's name, the tool's title.
				val = ghUnescape.Replace(val)
				if k == "file" && val != source {
					t.Fatalf("file %q, want %q", val, source)
				}
				if k == "title" && strings.HasPrefix(val, "grown tool: ") && val != "grown tool: "+name {
					t.Fatalf("title %q, want %q", val, "grown tool: "+name)
				}
			}
		}
	})
}

var ghUnescape = strings.NewReplacer("%25", "%", "%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",")

// TestGateBoundaryNote: the tool rows are each tool's own count, so when they do not add up to
// the listing's change the table says where the rest is.
func TestGateBoundaryNote(t *testing.T) {
	for _, tc := range []struct {
		after int
		want  bool
	}{{108, false}, {106, true}} {
		g := &Gate{Tokenizer: "o200k_base", Render: "compact", Before: Measure{Tokens: 100}, After: Measure{Tokens: tc.after},
			Changes: []GateChange{{Name: "a", Status: "grown", Before: 40, After: 48}}, Grown: 1}
		var b strings.Builder
		if err := WriteGateMarkdown(&b, g, GateOptions{}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(b.String(), "-2 tokens that form across the boundaries"); got != tc.want {
			t.Errorf("after %d: boundary note %v, want %v:\n%s", tc.after, got, tc.want, b.String())
		}
	}
}
