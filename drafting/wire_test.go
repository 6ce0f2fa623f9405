package drafting

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// Decode finds the JSON object in what models actually send, and says in words what is wrong
// with what it cannot read.
func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       int    // candidates read
		err        string // part of the error, "" for none
	}{
		{"bare", `{"candidates":[{"description":"Reads a ticket."}]}`, 1, ""},
		{"fenced", "```json\n{\"candidates\":[{\"description\":\"A.\"},{\"description\":\"B.\"}]}\n```", 2, ""},
		{"prose around", "Here you go:\n{\"candidates\":[{\"description\":\"A.\"}]}\nHope it helps {really}.", 1, ""},
		{"brace in prose first", "Use {braces} well: {\"candidates\":[{\"description\":\"A.\"}]}", 1, ""},
		{"empty", "  \n ", 0, "empty"},
		{"prose only", "Sure! Make it clearer.", 0, `no JSON object: "Sure! Make it clearer."`},
		{"wrong shape", `{"candidates": "see above"}`, 0, `wrong shape: "candidates" holds string where a list was asked for`},
		{"cut off", `{"candidates": [{"description": "A."}`, 0, "cut off"},
		{"too long", strings.Repeat("x", MaxAnswerBytes+1), 0, "more than the"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var a RewriteAnswer
			err := Decode(tc.text, &a)
			if tc.err == "" {
				if err != nil || len(a.Candidates) != tc.want {
					t.Fatalf("err %v, %d candidates; want %d", err, len(a.Candidates), tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err %v, want one containing %q", err, tc.err)
			}
		})
	}
}

// An error quotes at most MaxExcerpt characters of the answer, on one line.
func TestDecodeQuotesLittle(t *testing.T) {
	err := Decode("no json here "+strings.Repeat("and more words\n", 100), &RewriteAnswer{})
	if err == nil || len(err.Error()) > 200 || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q: want a short, one-line quote", err)
	}
}

// Request sends the job's own instructions, the brief as JSON, the caller's model, a fixed seed
// and no tools; ReadBrief reads the brief back.
func TestRequest(t *testing.T) {
	b := Brief{Job: JobRewrite, Tool: &BriefTool{Name: "get_data", Description: "Get ticket data by id."}, K: 3,
		ShouldWin: []string{"Show me ticket 4521"}}
	req := Request("gpt-x", b)
	if req.Model != "gpt-x" || req.Seed == nil || *req.Seed != Seed || len(req.Tools) != 0 || len(req.Messages) != 2 {
		t.Fatalf("request %+v", req)
	}
	sys := req.Messages[0].Content
	for _, want := range []string{"JSON", "candidates", "when to use it", "no promotion", "no instructions to the model"} {
		if !strings.Contains(sys, want) {
			t.Errorf("the rewrite prompt lacks %q", want)
		}
	}
	back, err := ReadBrief(req)
	if err != nil {
		t.Fatal(err)
	}
	if back.Tool.Name != "get_data" || back.ShouldWin[0] != "Show me ticket 4521" || back.K != 3 {
		t.Errorf("brief read back as %+v", back)
	}
	for _, j := range []Job{JobTasks, JobRubric} {
		if p := Request("m", Brief{Job: j}).Messages[0].Content; p == sys || !strings.Contains(p, "JSON") {
			t.Errorf("job %s: prompt %q", j, p)
		}
	}
}

// FuzzDecode: any text decodes or gives a short, one-line, valid UTF-8 error; never a panic.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"candidates":[]}`, "```json\n{\"a\":1}\n```", "{", "}{", `{"candidates":[{"description":1}]}`,
		"prose {not json} {\"candidates\":[{\"description\":\"x\"}]}", "```", "```\n{\"candidates\":\"x\"}", "\xff{"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var a RewriteAnswer
		err := Decode(s, &a)
		if err == nil {
			if _, e := json.Marshal(a); e != nil {
				t.Fatal(e)
			}
			return
		}
		msg := err.Error()
		if len(msg) > 600 || strings.Contains(msg, "\n") || !utf8.ValidString(msg) {
			t.Fatalf("error %q: want short, one line, valid UTF-8", msg)
		}
	})
}

// FuzzCandidates: whatever the model sends, at most k candidates are usable, every kept text is
// within MaxDescriptionBytes, and every problem is one line.
func FuzzCandidates(f *testing.F) {
	for _, s := range []string{`{"candidates":[{"description":"A."},{"description":"A."},{"description":""}]}`,
		`{"candidates":[{"description":"x","parameters":{"a":"b","":""}}]}`, `{"candidates":null}`, "[]", "```\n{}\n```"} {
		f.Add(s, 2)
	}
	f.Fuzz(func(t *testing.T, s string, k int) {
		cands, problems := Candidates(s, k, "Current.", k%2 == 0)
		usable := 0
		for _, c := range cands {
			if c.Refused == "" {
				usable++
			}
			if len(c.Description) > MaxDescriptionBytes+len("…") || len(c.Params) > maxParamsPerAns {
				t.Fatalf("kept %d bytes, %d params", len(c.Description), len(c.Params))
			}
		}
		if usable > clampK(k) || len(cands) > 2*MaxK {
			t.Fatalf("%d usable of %d kept for k %d", usable, len(cands), k)
		}
		for _, p := range problems {
			if strings.Contains(p, "\n") {
				t.Fatalf("problem %q spans lines", p)
			}
		}
	})
}
