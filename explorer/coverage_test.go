package explorer

import (
	"fmt"
	"testing"

	"everett/internal/guestimg"
)

func TestTheEdgeMapOfAOneNodeLinuxSpecStaysLessThanHalfFull(t *testing.T) {
	if testing.Short() {
		t.Skip("boots Linux")
	}
	im := guestimg.Linux(t)
	spec := fmt.Sprintf(`name: linux1
nodes:
  - kernel: %s
    initrd: %s
    append: "console=ttyS0 quiet"
    harts: 2
budgets: {time: 5s}
`, im.Kernel, im.Initrd)
	s, err := ParseSpec([]byte(spec), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	res, err := Explore(s, Options{Seed: 1, Universes: 16, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d edge slots (fill %.3f), %d interleaving pairs, corpus %d", res.Coverage, res.CoverageFill, res.Pairs, res.Corpus)
	if res.CoverageFill <= 0 || res.CoverageFill >= 0.5 {
		t.Fatalf("edge map fill %.3f, want (0, 0.5)", res.CoverageFill)
	}
	if res.Pairs == 0 {
		t.Fatal("two harts of Linux never communicated")
	}
	if res.Corpus == 0 {
		t.Fatal("no universe was new after the first: the map tells universes apart no more")
	}
}
