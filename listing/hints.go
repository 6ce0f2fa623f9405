package listing

// Hint is one of a tool's behaviour annotations and the value the MCP specification's schema
// gives it when a tool leaves it out: what a careful host assumes.
type Hint struct {
	Key     string // the member of "annotations"
	Help    string // what true means, in a few words
	Default bool   // the specification's default
}

// Hints is the one table of the specification's behaviour hints and their defaults, in the order
// the specification lists them. lint reports against it, the editor offers it and the export
// writes go-sdk's fields from it: a hint whose default is true is a *bool there, so that false
// can be said.
var Hints = []Hint{
	{"readOnlyHint", "the tool does not change its environment", false},
	{"destructiveHint", "a change may destroy or overwrite data", true},
	{"idempotentHint", "calling twice with the same arguments does nothing more", false},
	{"openWorldHint", "the tool reaches beyond a closed set of data (the web, other systems)", true},
}

// HintDefault returns the default of the hint named key, and whether key is a hint.
func HintDefault(key string) (def, ok bool) {
	for _, h := range Hints {
		if h.Key == key {
			return h.Default, true
		}
	}
	return false, false
}
