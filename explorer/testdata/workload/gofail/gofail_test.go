//go:build linux && riscv64

// Package gofail is a Go test binary's failures as everett sees them: built
// with `go test -c` for linux/riscv64 and run as a workload, a failing
// t.Error makes the binary exit 1 and a panic exit 2.
package gofail

import (
	"os"
	"testing"
)

func TestTheBalanceIsRight(t *testing.T) {
	if os.Getenv("GOFAIL") != "error" {
		t.Skip("set GOFAIL=error")
	}
	got, want := 90, 100
	if got != want {
		t.Errorf("balance %d, want %d", got, want)
	}
}

func TestTheConfigLoads(t *testing.T) {
	if os.Getenv("GOFAIL") != "panic" {
		t.Skip("set GOFAIL=panic")
	}
	var cfg map[string]int
	cfg["port"] = 2379 // assignment to a nil map: a panic
}
