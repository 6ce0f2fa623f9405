package listing

import "unicode"

// newerThanPython is what Go's unicode.IsPrint counts as printable but the reference's Python
// (3.11, Unicode 14.0, the machine's python3) does not: the characters Unicode 15.0 assigned.
// Python's repr escapes them, so PythonRepr must too. TestPythonPrintable checks the table
// against python3 itself.
var newerThanPython = &unicode.RangeTable{
	R16: []unicode.Range16{
		{0x0cf3, 0x0cf3, 1},
		{0x0ece, 0x0ece, 1},
	},
	R32: []unicode.Range32{
		{0x10efd, 0x10eff, 1},
		{0x1123f, 0x11241, 1},
		{0x11b00, 0x11b09, 1},
		{0x11f00, 0x11f10, 1},
		{0x11f12, 0x11f3a, 1},
		{0x11f3e, 0x11f59, 1},
		{0x1342f, 0x1342f, 1},
		{0x13440, 0x13455, 1},
		{0x1b132, 0x1b132, 1},
		{0x1b155, 0x1b155, 1},
		{0x1d2c0, 0x1d2d3, 1},
		{0x1df25, 0x1df2a, 1},
		{0x1e030, 0x1e06d, 1},
		{0x1e08f, 0x1e08f, 1},
		{0x1e4d0, 0x1e4f9, 1},
		{0x1f6dc, 0x1f6dc, 1},
		{0x1f774, 0x1f776, 1},
		{0x1f77b, 0x1f77f, 1},
		{0x1f7d9, 0x1f7d9, 1},
		{0x1fa75, 0x1fa77, 1},
		{0x1fa87, 0x1fa88, 1},
		{0x1faad, 0x1faaf, 1},
		{0x1fabb, 0x1fabd, 1},
		{0x1fabf, 0x1fabf, 1},
		{0x1face, 0x1facf, 1},
		{0x1fada, 0x1fadb, 1},
		{0x1fae8, 0x1fae8, 1},
		{0x1faf7, 0x1faf8, 1},
		{0x2b739, 0x2b739, 1},
		{0x31350, 0x323af, 1},
	},
}

// pythonPrintable is Python 3.11's str.isprintable for one character above ASCII.
func pythonPrintable(r rune) bool { return unicode.IsPrint(r) && !unicode.Is(newerThanPython, r) }
