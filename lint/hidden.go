package lint

// HiddenKind says whether the hidden-unicode rule flags r, and as what: "tag", "bidi",
// "invisible", or "" for a character a reader can see. The editor's marks of hidden characters
// (static/files/marks.js) follow it; a browser test compares the two over all of Unicode.
func HiddenKind(r rune) string { return hiddenKind(r) }
