package litmus

import "testing"

// BenchmarkLitmusRunMP measures runs of MP on one worker (one machine)
// under sc and under rvwmo.
func BenchmarkLitmusRunMP(b *testing.B) {
	for _, model := range []string{ModelSC, ModelRVWMO} {
		b.Run(model, func(b *testing.B) {
			tt := loadTest(b, "MP")
			p, err := layoutFor(tt, model)
			if err != nil {
				b.Fatal(err)
			}
			opt := Options{Model: model}
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
		})
	}
}
