package rx

import (
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// same checks that rx and Go's regexp agree on expr over text: both
// refuse it, or both find the same matches with the same groups.
func same(t *testing.T, expr, text string) {
	t.Helper()
	want, werr := regexp.Compile(expr)
	got, gerr := Compile(expr)
	if werr != nil || gerr != nil {
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("Compile(%q): regexp says %v, rx says %v", expr, werr, gerr)
		}
		return
	}
	if got.NumSubexp() != want.NumSubexp() {
		t.Fatalf("%q: %d groups, regexp says %d", expr, got.NumSubexp(), want.NumSubexp())
	}
	w := want.FindAllSubmatchIndex([]byte(text), -1)
	g := got.FindAllSubmatchIndex([]byte(text), -1)
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("%q on %q:\n rx     %v\n regexp %v", expr, text, g, w)
	}
}

func TestLikeGo(t *testing.T) {
	texts := []string{"", "a", "ab", "aaa", "abab", "a\nb\n", "x 12.5 MB/s y 3 MB/s", "Kk\u212as\u017fS", "\xff\xfea", "foo_bar baz9", "[]{}^$", "aaaaaaaaaaaaaaaaaaaaaaaa!"}
	exprs := []string{
		``, `a`, `a*`, `a+?`, `(a)|b`, `(a*)*`, `(a|ab)(c|bcd)?`, `(?i)k`, `(?i)[^k]`, `[^a]`, `.`, `(?s).`,
		`^a`, `(?m)^b$`, `a$`, `\bab\b`, `\Bb`, `\d+(?:\.\d+)?`, `([0-9.]+) MB/s`, `\s+(\d+)`, `[[:alpha:]]+`,
		`[[:^digit:]]`, `[\d\s]`, `[\D]`, `a{2}`, `a{2,}`, `a{1,3}?`, `a{,3}`, `a{`, `x{1001}`, `a**`, `a*?`, `a??`,
		`(?U)a+`, `(?U)a+?`, `(?i:A)b`, `(?i)a(?-i)A`, `\x41`, `\x{263a}`, `\101`, `\8`, `[a-]`, `[]a]`,
		`[^]a]`, `[z-a]`, `(`, `)`, `a|`, `|a`, `(|a)*`, `(a?)+`, `((a)|b)+`, `\Aa`, `a\z`, `\Q`, `[\]]`, `[\-a]`,
		`(?P<n>a)`, `\n`, `[\x00-\x{10FFFF}]`, `(a+)+!`, `()`, `(?:)`, `\.`, `\_`, `\z\A`, `(?i)[a-c]+`, `(?i)ſ`,
	}
	for _, e := range exprs {
		for _, s := range texts {
			same(t, e, s)
		}
	}
}

// TestLikeGoRandom compares random expressions over a small alphabet.
func TestLikeGoRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	atoms := []string{"a", "b", ".", "[ab]", "[^a]", `\d`, `\b`, "^", "$", "(?i)A", "1", `\s`, "(?m)^", "(?m)$"}
	var gen func(depth int) string
	gen = func(depth int) string {
		if depth == 0 || r.IntN(3) == 0 {
			return atoms[r.IntN(len(atoms))]
		}
		switch r.IntN(6) {
		case 0:
			return gen(depth-1) + gen(depth-1)
		case 1:
			return gen(depth-1) + "|" + gen(depth-1)
		case 2:
			return "(" + gen(depth-1) + ")"
		case 3:
			return "(?:" + gen(depth-1) + ")" + []string{"*", "+", "?", "*?", "+?", "??", "{1,2}", "{2}", "{0,}"}[r.IntN(9)]
		case 4:
			return "(" + gen(depth-1) + ")*"
		default:
			return gen(depth-1) + gen(depth-1) + gen(depth-1)
		}
	}
	alpha := "ab1 A\n"
	for range 8000 {
		e := gen(4)
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteByte(alpha[r.IntN(len(alpha))])
		}
		same(t, e, b.String())
	}
}

func FuzzLikeGo(f *testing.F) {
	f.Add(`([0-9.]+) MB/s`, "x 12.5 MB/s")
	f.Add(`(a|ab)(c|bcd)(d*)`, "abcd")
	f.Add(`(?i)[^k]+\b`, "K\u212a x")
	f.Fuzz(func(t *testing.T, expr, text string) {
		if strings.Contains(expr, `\p`) || strings.Contains(expr, `\P`) || len(expr) > 64 {
			return // refused by rx on purpose; long ones are slow in both
		}
		if !isASCII(expr) {
			return // (?i) folds ASCII only
		}
		same(t, expr, text)
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func TestRefusesUnicodeClasses(t *testing.T) {
	_, err := Compile(`\p{Greek}+`)
	if err == nil || !strings.Contains(err.Error(), "not supported") {
		t.Fatalf("Compile(\\p{Greek}) = %v, want a refusal naming the limit", err)
	}
}

// TestLinear: a pattern that is exponential for a naive backtracker
// runs in time proportional to the text (a 20 KB text here).
func TestLinear(t *testing.T) {
	re := MustCompile(`(a+)+b`)
	if m := re.FindAllSubmatch([]byte(strings.Repeat("a", 20000)), -1); m != nil {
		t.Fatalf("matched %d", len(m))
	}
}
