package rank

import "math"

// Student's t distribution, exactly: the comparisons' degrees of freedom
// are often small (a point of 3 runs against few baseline runs), where an
// expansion in 1/dof is off by more than the error rate it is used for.

// TCDF is P(T <= t) for Student's t with dof degrees of freedom (dof > 0,
// real: Welch's approximation gives fractional ones).
func TCDF(t, dof float64) float64 {
	if math.IsNaN(t) || dof <= 0 {
		return math.NaN()
	}
	if math.IsInf(t, 0) {
		if t > 0 {
			return 1
		}
		return 0
	}
	tail := 0.5 * regIncBeta(dof/(dof+t*t), dof/2, 0.5)
	if t > 0 {
		return 1 - tail
	}
	return tail
}

// TQuantileF is the p-quantile of Student's t with dof (real) degrees of
// freedom, found by bisection on TCDF to 1e-10.
func TQuantileF(p, dof float64) float64 {
	switch {
	case math.IsNaN(p) || dof <= 0:
		return math.NaN()
	case p <= 0:
		return math.Inf(-1)
	case p >= 1:
		return math.Inf(1)
	case p < 0.5:
		return -TQuantileF(1-p, dof)
	}
	lo, hi := 0.0, 1.0
	for TCDF(hi, dof) < p {
		lo, hi = hi, hi*2
		if hi > 1e12 {
			return hi
		}
	}
	for range 200 {
		mid := (lo + hi) / 2
		if TCDF(mid, dof) < p {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo < 1e-10*math.Max(1, hi) {
			break
		}
	}
	return (lo + hi) / 2
}

// TQuantile is TQuantileF for whole degrees of freedom; dof < 1 is
// treated as 1.
func TQuantile(p float64, dof int) float64 { return TQuantileF(p, float64(max(dof, 1))) }

// regIncBeta is the regularised incomplete beta function I_x(a, b), by
// its continued fraction (modified Lentz), using the symmetry
// I_x(a,b) = 1 - I_{1-x}(b,a) where the fraction converges slowly.
func regIncBeta(x, a, b float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	lbeta := lgamma(a+b) - lgamma(a) - lgamma(b)
	front := math.Exp(lbeta + a*math.Log(x) + b*math.Log1p(-x))
	if x > (a+1)/(a+b+2) {
		return 1 - front*betaFraction(1-x, b, a)/b
	}
	return front * betaFraction(x, a, b) / a
}

func lgamma(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}

// betaFraction evaluates the continued fraction of I_x(a, b).
func betaFraction(x, a, b float64) float64 {
	const tiny, eps = 1e-300, 1e-15
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	f := d
	// One Lentz step with the fraction's next numerator.
	step := func(num float64) float64 {
		d = 1 + num*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		return d * c
	}
	for m := 1; m <= 500; m++ {
		fm := float64(m)
		f *= step(fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm)))                // even
		delta := step(-(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))) // odd
		f *= delta
		if math.Abs(delta-1) < eps {
			break
		}
	}
	return f
}
