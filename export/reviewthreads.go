package export

import (
	"bytes"
	"fmt"
	"strings"
	"time"
)

// ReviewState is a workspace's review as the review export shows it: the release gate, the
// sign-offs and the comment threads. The caller converts the review service's answer into it
// (this package sits below the review's).
type ReviewState struct {
	Gate     ReviewGate
	Signoffs []ReviewSignoff // everyone's latest, newest first
	Threads  []ReviewThread
}

// ReviewGate is the release gate's answer for the head.
type ReviewGate struct {
	Passed      bool
	Revision    int
	Hash        string
	Require     int
	Approvals   int
	OpenThreads int
	Errors      int
	Reasons     []string
}

// ReviewSignoff is one person's latest sign-off.
type ReviewSignoff struct {
	Author   string
	Approved bool // else changes requested
	Message  string
	Revision int
	Hash     string
	Time     time.Time
	Current  bool     // the head's listing has the hash signed off
	Changed  []string // what changed since, when not Current
}

// ReviewThread is one comment thread as it stands at the head.
type ReviewThread struct {
	Label      string
	Resolved   bool
	ResolvedBy string
	Gone       bool // its tool was removed
	// Outdated tells that Was, the text the thread was made on, differs from Now, the text
	// at the head.
	Outdated bool
	Was, Now string
	Comments []ReviewComment // the first, then the replies
}

// ReviewComment is one comment of a thread.
type ReviewComment struct {
	Author string
	Time   time.Time
	Body   string
}

// ReviewSection writes the review's section of the Markdown report: the gate line, a table of
// sign-offs and each thread with its comments. Every piece of user text is escaped running
// text, a table cell or a fenced block (comments span lines), so that none of it can become
// Markdown or HTML.
func ReviewSection(s ReviewState) []byte {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	g := s.Gate
	verdict := "**Fails**"
	if g.Passed {
		verdict = "**Passes**"
	}
	p("\n## Review\n\n%s the release gate at revision %d (%s): %d of %d approval(s), %d open thread(s), %d error finding(s).\n",
		verdict, g.Revision, mdCode(shortHash(g.Hash)), g.Approvals, g.Require, g.OpenThreads, g.Errors)
	if len(g.Reasons) > 0 {
		p("\n")
		for _, r := range g.Reasons {
			p("- %s\n", line1(r))
		}
	}
	p("\n### Sign-offs\n\n")
	if len(s.Signoffs) == 0 {
		p("Nobody has signed off.\n")
	} else {
		p("| Who | Verdict | Revision | Hash | When | State | Message |\n|---|---|---|---|---|---|---|\n")
		for _, so := range s.Signoffs {
			verdict := "changes requested"
			if so.Approved {
				verdict = "approved"
			}
			state := "current"
			if !so.Current {
				state = "stale"
				if len(so.Changed) > 0 {
					state += ": " + line1(strings.Join(so.Changed, "; "))
				}
			}
			p("| %s | %s | %d | %s | %s | %s | %s |\n", mdCell(line1(so.Author)), verdict, so.Revision, mdCell(mdCode(shortHash(so.Hash))),
				when(so.Time), mdCell(state), mdCell(line1(so.Message)))
		}
	}
	p("\n### Threads\n\n")
	if len(s.Threads) == 0 {
		p("No comments.\n")
	}
	for _, t := range s.Threads {
		writeThread(&b, t)
	}
	return b.Bytes()
}

func writeThread(b *bytes.Buffer, t ReviewThread) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	state := "open"
	if t.Resolved {
		state = "resolved"
		if t.ResolvedBy != "" {
			state += " by " + line1(t.ResolvedBy)
		}
	}
	if t.Gone {
		state += ", tool removed"
	}
	if t.Outdated {
		state += ", outdated"
	}
	p("#### %s (%s)\n\n", line1(t.Label), state)
	if t.Outdated {
		p("The text it was made on:\n\n%s\n", fenced(t.Was))
		if t.Now != "" {
			p("The text now:\n\n%s\n", fenced(t.Now))
		}
	}
	for _, c := range t.Comments {
		p("From %s, %s:\n\n%s\n", line1(c.Author), when(c.Time), fenced(c.Body))
	}
}

// shortHash is a content hash as people compare them: sha256: and 12 hex digits.
func shortHash(h string) string {
	const keep = len("sha256:") + 12
	if len(h) > keep {
		return h[:keep]
	}
	return h
}

func when(t time.Time) string {
	if t.IsZero() {
		return "unknown time"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// line1 is user text as escaped Markdown on one line: its line breaks and runs of spaces
// become one space.
func line1(s string) string { return mdText(oneLineText(s)) }
