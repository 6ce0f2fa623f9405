package review

import "github.com/tool-workbench/workbench/listing"

// Changes says what changed from listing a to listing b, as a stale sign-off's Changed does
// (at most 10 lines: "tool x added", "x: description changed"), and how many changes that
// is, for a person about to sign off on b who read a.
func Changes(a, b *listing.Listing) (lines []string, n int) {
	d := listing.Compare(a, b)
	return summary(d), max(len(d.Changes), 1)
}
