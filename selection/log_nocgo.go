//go:build !cgo

package selection

import "math"

// log falls back to Go's math.Log when cgo is off. It can differ from the C library's log (and
// so from the reference checker) in the last bit, which changes a verdict only on an exact tie.
func log(x float64) float64 { return math.Log(x) }
