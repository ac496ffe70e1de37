package litmus

import (
	"os"
	"testing"
)

func TestQuick(t *testing.T) {
	src, _ := os.ReadFile("../testdata/litmus/MP.litmus")
	tt, err := Parse("MP.litmus", src)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(tt, Options{Runs: 20000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	r.Write(os.Stdout)
}
