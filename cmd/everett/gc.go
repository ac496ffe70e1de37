package main

import (
	"os"
	"runtime/debug"
)

// onlyMachineGCPercent is the Go collector's target for a run of one
// machine: its heap is nearly all decoded blocks and translation records
// that live to the end, so a collection finds little to free, and at the
// default (100) the collector runs about 3% of a Linux boot.
const onlyMachineGCPercent = 400

// relaxGC lets the heap grow further between collections, unless the user
// set GOGC, which wins. A host setting: it never changes results.
func relaxGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(onlyMachineGCPercent)
	}
}
