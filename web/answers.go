package web

import "strings"

// answersText is a task's expected tool as a table cell shows it: the tool, or its right tools
// joined by "or".
func answersText(answers []string, expected string) string {
	if len(answers) == 0 {
		return expected
	}
	return strings.Join(answers, " or ")
}
