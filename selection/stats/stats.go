// Package stats holds the statistics behind a model run's verdicts: the Wilson score interval
// for an accuracy, the exact McNemar test for two runs on the same tasks, and Newcombe's
// interval for the difference of two paired proportions. Pure functions, standard library only.
package stats

import (
	"math"
	"math/big"
)

// Z95 is the standard normal quantile for a two-sided 95% interval.
const Z95 = 1.959963984540054

// Interval is a confidence interval. Low and High are equal to the estimate's bounds of [0, 1]
// (or [-1, 1] for a difference) when nothing was observed.
type Interval struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// Wilson returns the Wilson score interval for k successes in n trials at normal quantile z
// (Z95 for 95%). With n == 0 nothing is known and the interval is [0, 1]. It stays inside
// [0, 1] and, unlike the Wald interval, is not degenerate at k == 0 or k == n, which is where
// small task files live.
func Wilson(k, n int, z float64) Interval {
	if n <= 0 {
		return Interval{0, 1}
	}
	if k < 0 {
		k = 0
	}
	if k > n {
		k = n
	}
	nf := float64(n)
	p := float64(k) / nf
	z2 := z * z
	den := 1 + z2/nf
	centre := (p + z2/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / den
	iv := Interval{centre - half, centre + half}
	// At the edges the closed form lands on 0 or 1 up to rounding; pin it there.
	if k == 0 {
		iv.Low = 0
	}
	if k == n {
		iv.High = 1
	}
	iv.Low, iv.High = math.Max(0, iv.Low), math.Min(1, iv.High)
	return iv
}

// McNemarExact returns the two-sided exact McNemar p-value for b and c discordant pairs (b:
// right before and wrong after; c: the reverse). Under the null each discordant pair goes
// either way with probability one half, so the p-value is twice the binomial tail of the
// smaller count, capped at 1. With no discordant pairs it is 1.
func McNemarExact(b, c int) float64 {
	if b < 0 || c < 0 {
		return math.NaN()
	}
	n := b + c
	if n == 0 {
		return 1
	}
	m := min(b, c)
	if n <= exactLimit {
		// Exactly: sum C(n, i) for i <= m as integers, then divide by 2^(n-1).
		sum, term := new(big.Int), big.NewInt(1)
		for i := 0; i <= m; i++ {
			sum.Add(sum, term)
			term.Mul(term, big.NewInt(int64(n-i)))
			term.Quo(term, big.NewInt(int64(i+1)))
		}
		p, _ := new(big.Rat).SetFrac(sum, new(big.Int).Lsh(big.NewInt(1), uint(n-1))).Float64()
		return math.Min(1, p)
	}
	// Beyond that, in log space: the terms are far from the edge of float64 there.
	tail := 0.0
	for i := 0; i <= m; i++ {
		tail += math.Exp(logChoose(n, i) - float64(n)*math.Ln2)
	}
	return math.Min(1, 2*tail)
}

// exactLimit is the most discordant pairs McNemarExact sums in integers.
const exactLimit = 20000

func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// Paired is a 2×2 table of paired outcomes: the same item scored under a baseline and under a
// current condition.
type Paired struct {
	BothRight   int `json:"bothRight"`
	BaseOnly    int `json:"baseOnly"`    // right in the baseline, wrong now
	CurrentOnly int `json:"currentOnly"` // wrong in the baseline, right now
	BothWrong   int `json:"bothWrong"`
}

// N is the number of pairs.
func (p Paired) N() int { return p.BothRight + p.BaseOnly + p.CurrentOnly + p.BothWrong }

// Difference is the current accuracy less the baseline's.
func (p Paired) Difference() float64 {
	n := p.N()
	if n == 0 {
		return 0
	}
	return float64(p.CurrentOnly-p.BaseOnly) / float64(n)
}

// DifferenceInterval returns Newcombe's hybrid score interval (his method 10, 1998, without
// continuity correction) for the current accuracy less the baseline's. It combines the Wilson
// intervals of the two accuracies with their correlation across pairs, so it stays inside
// [-1, 1] and behaves at small counts, where a Wald interval for paired data does not.
func (p Paired) DifferenceInterval(z float64) Interval {
	n := p.N()
	if n == 0 {
		return Interval{-1, 1}
	}
	a, b, c, d := float64(p.BothRight), float64(p.BaseOnly), float64(p.CurrentOnly), float64(p.BothWrong)
	nf := float64(n)
	p1, p2 := (a+b)/nf, (a+c)/nf // baseline, current
	w1 := Wilson(p.BothRight+p.BaseOnly, n, z)
	w2 := Wilson(p.BothRight+p.CurrentOnly, n, z)
	phi := 0.0
	if den := (a + b) * (c + d) * (a + c) * (b + d); den > 0 {
		phi = (a*d - b*c) / math.Sqrt(den)
	}
	theta := p2 - p1
	dl := math.Sqrt(math.Max(0, sq(p2-w2.Low)-2*phi*(p2-w2.Low)*(w1.High-p1)+sq(w1.High-p1)))
	du := math.Sqrt(math.Max(0, sq(w2.High-p2)-2*phi*(w2.High-p2)*(p1-w1.Low)+sq(p1-w1.Low)))
	return Interval{math.Max(-1, theta-dl), math.Min(1, theta+du)}
}

func sq(x float64) float64 { return x * x }
