//go:build cgo

package selection

// #cgo LDFLAGS: -lm
// #include <math.h>
import "C"

// log is the C library's natural logarithm. The reference checker's weights come from Python's
// math.log, which calls it; Go's math.Log differs from it in the last bit for about one argument
// in twelve, enough to flip an exact tie. See log_nocgo.go for builds without cgo.
func log(x float64) float64 { return float64(C.log(C.double(x))) }
