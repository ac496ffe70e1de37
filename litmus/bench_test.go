package litmus

import "testing"

// BenchmarkLitmusRunMP measures runs of MP on one worker (one machine).
func BenchmarkLitmusRunMP(b *testing.B) {
	tt := loadTest(b, "MP")
	p, err := Layout(tt)
	if err != nil {
		b.Fatal(err)
	}
	opt := Options{}
	w, err := newWorker(p, observed(tt), &opt)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		if _, err := w.run(runSeed(1, i)); err != nil {
			b.Fatal(err)
		}
	}
}
