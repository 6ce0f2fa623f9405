package listing

import (
	"bytes"
	"strconv"
	"testing"
)

// replacementCase is a source, edits of it, and the text Replacements must make.
type replacementCase struct {
	name, src string
	ops       []Op
	want      string
}

func replacementCases() []replacementCase {
	str := NewString
	return []replacementCase{
		{
			name: "a changed string keeps the rest byte for byte",
			src:  "{\"tools\": [\n    {\"name\": \"a\", \"description\": \" hi \", \"n\": 1.50E+2, \"x\": \"\\u00e9\"}\n]}\n",
			ops:  []Op{{Kind: OpSet, Path: "/tools/0/description", Value: str("hi")}},
			want: "{\"tools\": [\n    {\"name\": \"a\", \"description\": \"hi\", \"n\": 1.50E+2, \"x\": \"\\u00e9\"}\n]}\n",
		},
		{
			name: "an added member takes the object's indentation and spacing",
			src:  "{\n\t\"tools\": [\n\t\t{\n\t\t\t\"name\": \"a\",\n\t\t\t\"inputSchema\": {\n\t\t\t\t\"type\": \"object\"\n\t\t\t}\n\t\t}\n\t]\n}",
			ops: []Op{{Kind: OpSet, Path: "/tools/0/inputSchema/required", Value: NewArray()},
				{Kind: OpSet, Path: "/tools/0/annotations", Value: NewObject(Member{Key: "readOnlyHint", Value: NewBool(true)})}},
			want: "{\n\t\"tools\": [\n\t\t{\n\t\t\t\"name\": \"a\",\n\t\t\t\"inputSchema\": {\n\t\t\t\t\"type\": \"object\",\n\t\t\t\t\"required\": []\n\t\t\t},\n" +
				"\t\t\t\"annotations\": {\n\t\t\t\t\"readOnlyHint\": true\n\t\t\t}\n\t\t}\n\t]\n}",
		},
		{
			name: "a compact object stays on its line",
			src:  "[\n  {\"name\":\"a\",\"inputSchema\":{\"type\":\"object\"}},\n  {\"name\":\"b\"}\n]",
			ops:  []Op{{Kind: OpSet, Path: "/tools/0/inputSchema/properties", Value: NewObject(Member{Key: "q", Value: NewObject()})}},
			want: "[\n  {\"name\":\"a\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"q\":{}}}},\n  {\"name\":\"b\"}\n]",
		},
		{
			name: "new members on a line spaced as Python spaces JSON",
			src:  "[{\"name\": \"a\", \"inputSchema\": {\"type\": \"object\"}}]",
			ops: []Op{{Kind: OpSet, Path: "/tools/0/inputSchema/required", Value: NewArray()},
				{Kind: OpSet, Path: "/tools/0/annotations", Value: NewObject(Member{Key: "readOnlyHint", Value: NewBool(true)}, Member{Key: "x", Value: NewArray(NewInt(1), NewInt(2))})}},
			want: "[{\"name\": \"a\", \"inputSchema\": {\"type\": \"object\", \"required\": []}, \"annotations\": {\"readOnlyHint\": true, \"x\": [1, 2]}}]",
		},
		{
			name: "a removed member takes its separator with it",
			src:  "{\"tools\": [{\n  \"name\": \"a\",\n  \"x-mcp-header\": \"X\",\n  \"description\": \"d\"\n}]}",
			ops:  []Op{{Kind: OpRemove, Path: "/tools/0/x-mcp-header"}},
			want: "{\"tools\": [{\n  \"name\": \"a\",\n  \"description\": \"d\"\n}]}",
		},
		{
			name: "a removed last member leaves the closing bracket's line",
			src:  "{\"tools\": [{\n  \"name\": \"a\",\n  \"title\": \"T\"\n}]}",
			ops:  []Op{{Kind: OpRemove, Path: "/tools/0/title"}},
			want: "{\"tools\": [{\n  \"name\": \"a\"\n}]}",
		},
		{
			name: "a repeated key dropped keeps the value a parser keeps",
			src:  "{\"tools\": [{\"name\": \"a\", \"title\": \"old\", \"d\": 1, \"title\": \"new\"}]}",
			ops:  []Op{{Kind: OpRemove, Path: "/tools/0/title"}, {Kind: OpSet, Path: "/tools/0/title", Value: str("new")}},
			want: "{\"tools\": [{\"name\": \"a\", \"d\": 1, \"title\": \"new\"}]}",
		},
		{
			name: "an SSE data line and a response envelope stay as they were",
			src:  "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":\"a\u200b\"}],\"nextCursor\":null}}\n\n",
			ops:  []Op{{Kind: OpSet, Path: "/tools/0/name", Value: str("a")}},
			want: "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":\"a\"}],\"nextCursor\":null}}\n\n",
		},
		{
			name: "an empty object that gains members is written whole",
			src:  "[\n  {\n    \"name\": \"a\",\n    \"inputSchema\": {}\n  }\n]",
			ops:  []Op{{Kind: OpSet, Path: "/tools/0/inputSchema/type", Value: str("object")}},
			want: "[\n  {\n    \"name\": \"a\",\n    \"inputSchema\": {\n      \"type\": \"object\"\n    }\n  }\n]",
		},
		{
			name: "an array item changed in place",
			src:  "[{\"name\": \"a\", \"inputSchema\": {\"required\": [\"x\", \"y \", \"z\"]}}]",
			ops:  []Op{{Kind: OpSet, Path: "/tools/0/inputSchema/required/1", Value: str("y")}},
			want: "[{\"name\": \"a\", \"inputSchema\": {\"required\": [\"x\", \"y\", \"z\"]}}]",
		},
		{
			name: "an array item removed",
			src:  "[{\"name\": \"a\", \"e\": [\n  1,\n  2,\n  3\n]}]",
			ops:  []Op{{Kind: OpRemove, Path: "/tools/0/e/1"}},
			want: "[{\"name\": \"a\", \"e\": [\n  1,\n  3\n]}]",
		},
	}
}

func TestReplacements(t *testing.T) {
	for _, tt := range replacementCases() {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Parse([]byte(tt.src), Options{})
			if err != nil {
				t.Fatal(err)
			}
			fixed, err := l.ApplyAll(tt.ops)
			if err != nil {
				t.Fatal(err)
			}
			reps, err := Replacements(l, fixed)
			if err != nil {
				t.Fatal(err)
			}
			got := ApplyReplacements(l.Source, reps)
			if string(got) != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
			again, err := Parse(got, Options{})
			if err != nil {
				t.Fatalf("the rewritten text does not parse: %v", err)
			}
			if a, b := again.Marshal(""), fixed.Marshal(""); !bytes.Equal(a, b) {
				t.Errorf("the rewritten text reads as\n%s\nnot as the edited listing\n%s", a, b)
			}
		})
	}
}

func TestReplacementsRefuseOtherTools(t *testing.T) {
	l, err := Parse([]byte(`[{"name":"a"},{"name":"b"}]`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	fixed, err := l.Apply(Op{Kind: OpRemove, Path: "/tools/1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Replacements(l, fixed); err == nil {
		t.Error("a removed tool gave replacements; want an error")
	}
}

func TestValueReplacement(t *testing.T) {
	src := []byte("[\n  {\"task\": \"t\", \"expect\": \"old\\u0041\"}\n]")
	doc, err := ParseJSON(src)
	if err != nil {
		t.Fatal(err)
	}
	r := ValueReplacement(src, doc.Items[0].Get("expect"), NewString("new"))
	if got, want := string(ApplyReplacements(src, []Replacement{r})), "[\n  {\"task\": \"t\", \"expect\": \"new\"}\n]"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestReplacementsKeepASCIIEscapes(t *testing.T) {
	src := "{\"tools\": [{\"name\": \"a\", \"description\": \" caf\\u00e9 \\ud83d\\ude00 \"}]}"
	l, err := Parse([]byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	fixed, err := l.Apply(Op{Kind: OpSet, Path: "/tools/0/description", Value: NewString("café 😀")})
	if err != nil {
		t.Fatal(err)
	}
	reps, err := Replacements(l, fixed)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\"tools\": [{\"name\": \"a\", \"description\": \"caf\\u00e9 \\ud83d\\ude00\"}]}"
	if got := string(ApplyReplacements(l.Source, reps)); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// fuzzOps derives edits of l from the bytes of plan: per tool, one of a changed string, a
// member added, a member removed, a nested value changed, or nothing.
func fuzzOps(l *Listing, plan []byte) []Op {
	var ops []Op
	for i, t := range l.Tools {
		if i >= len(plan) {
			break
		}
		base := JoinPointer("tools", strconv.Itoa(i))
		switch plan[i] % 5 {
		case 0:
			ops = append(ops, Op{Kind: OpSet, Path: base + "/description", Value: NewString("d\u00e9 \"q\"\n" + strconv.Itoa(i))})
		case 1:
			ops = append(ops, Op{Kind: OpSet, Path: base + "/annotations", Value: NewObject(
				Member{Key: "readOnlyHint", Value: NewBool(true)}, Member{Key: "x", Value: NewArray(NewInt(1), NewObject())})})
		case 2:
			if len(t.Members) > 1 && t.Members[len(t.Members)-1].Key != "name" {
				ops = append(ops, Op{Kind: OpRemove, Path: base + JoinPointer(t.Members[len(t.Members)-1].Key)})
			}
		case 3:
			if s := t.Get("inputSchema"); s.IsObject() {
				ops = append(ops, Op{Kind: OpSet, Path: base + "/inputSchema/required", Value: NewArray()})
			}
		}
	}
	return ops
}

// FuzzReplacements: whatever the source's layout, the text Replacements make reads back as the
// edited listing, and a value the edits did not touch keeps its bytes.
func FuzzReplacements(f *testing.F) {
	for _, c := range replacementCases() {
		f.Add(c.src, []byte{0, 1, 2, 3})
	}
	f.Add("[{\"name\":\"a\"},{\"name\":\"b\",\"inputSchema\":{}}]", []byte{1, 3})
	f.Fuzz(func(t *testing.T, src string, plan []byte) {
		l, err := Parse([]byte(src), Options{Limits: Limits{Bytes: 1 << 16, Tools: 64}})
		if err != nil {
			return
		}
		fixed, err := l.ApplyAll(fuzzOps(l, plan))
		if err != nil {
			return
		}
		reps, err := Replacements(l, fixed)
		if err != nil {
			t.Fatal(err)
		}
		got := ApplyReplacements(l.Source, reps)
		again, err := Parse(got, Options{})
		if err != nil {
			t.Fatalf("the rewritten text does not parse: %v\n%s", err, got)
		}
		if a, b := again.Marshal(""), fixed.Marshal(""); !bytes.Equal(a, b) {
			t.Fatalf("the rewritten text reads as\n%s\nnot as the edited listing\n%s", a, b)
		}
		for i, o := range l.Tools {
			if fixed.Tools[i] == o && !bytes.Contains(got, []byte(src[o.Pos:newRewriter(l.Source).end(o)])) {
				t.Fatalf("untouched tool %d lost its bytes", i)
			}
		}
	})
}
