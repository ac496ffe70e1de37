// Command seqlock is everett's user-space race example: a sequence lock
// between a writer and a reader goroutine, each locked to a thread of its
// own, with a bug in the reader's retry path. It is an ordinary program: run
// it as the workload of a one-node, two-hart Linux machine,
//
//	everett explore --linux --smp 2 build/examples/seqlock/seqlock
//
// (build.sh builds it), where the SDK assertion below reports a torn copy
// and the exit code 1 says it too. spec.yaml boots the same binary as the
// kernel's init instead, the example's older form; only then does it end the
// run itself (asInit, in init.go).
//
// The writer publishes a record of 32 words (256 bytes, next to the
// sequence number on one page) now and then: it makes the sequence number
// odd, writes every word with the new version, and makes the sequence even
// again: about seventy instructions. The reader copies the record
// and retries while the sequence changed under it. Its bug: it does not
// retry when the sequence was odd when it started, so a copy taken while
// the writer is half-way is accepted when the writer stays paused for the
// whole copy. Both sleep between operations, as a real service's threads
// would; no loop is there to provoke the race. The fix: retry while s1 is
// odd too (s1&1 != 0).
//
// Off everett (qemu-riscv64-static, say) run it with EVERETT_SDK=off: the
// SDK cannot tell from a host's /proc that it is not on everett.
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"everett/guest-images/sdk/go/everett"
)

const (
	words   = 32  // words of the record
	updates = 100 // records the writer publishes
	reads   = 100 // copies the reader takes
)

// record is what the sequence lock protects: the sequence number in the
// first cache line, the words in the next four.
type record struct {
	seq  atomic.Uint64
	_    [56]byte
	data [words]atomic.Uint64
}

var rec record

func write(version uint64) {
	rec.seq.Add(1) // odd: a write is in progress
	for i := range rec.data {
		rec.data[i].Store(version)
	}
	rec.seq.Add(1) // even: the record is whole again
}

// read copies the record. The bug: s1 odd (a write in progress when the
// copy began) should mean "retry", but only a change of the sequence does.
func read(out *[words]uint64) {
	for {
		s1 := rec.seq.Load()
		for i := range rec.data {
			out[i] = rec.data[i].Load()
		}
		if rec.seq.Load() == s1 {
			return
		}
	}
}

// pause sleeps a drawn 50 to 250 µs (virtual time: free when idle).
func pause() {
	time.Sleep(time.Duration(50+everett.Random()%200) * time.Microsecond)
}

func writer(wg *sync.WaitGroup) {
	defer wg.Done()
	runtime.LockOSThread()
	for v := uint64(1); v <= updates; v++ {
		pause()
		write(v)
	}
}

// reader takes the copies and counts the torn ones in *torn.
func reader(wg *sync.WaitGroup, torn *int) {
	defer wg.Done()
	runtime.LockOSThread()
	var copy [words]uint64
	for n := 0; n < reads; n++ {
		pause()
		read(&copy)
		whole := true
		for _, w := range copy {
			whole = whole && w == copy[0]
		}
		everett.Always(whole, "a reader sees one version of the record")
		if !whole {
			*torn++
			fmt.Printf("seqlock: torn copy: word 0 is version %d, word %d is version %d\n", copy[0], words-1, copy[words-1])
		}
	}
}

func main() {
	runtime.GOMAXPROCS(2)
	everett.SetupComplete()
	var wg sync.WaitGroup
	torn := 0
	wg.Add(2)
	go writer(&wg)
	go reader(&wg, &torn)
	wg.Wait()
	code := 0
	if torn > 0 {
		fmt.Printf("seqlock: %d of %d copies torn\n", torn, reads)
		code = 1
	} else {
		fmt.Println("seqlock: done")
	}
	if os.Getpid() == 1 {
		asInit(code)
	}
	os.Exit(code)
}
