// Command gohelper is a Go program for the init's tests; its argument says
// how it fails.
//
//	panic     panics under a deep stack, after more output than an exit
//	          event's tail keeps
//	deadlock  two goroutines lock two mutexes in opposite orders while a
//	          third waits in Accept, so Go's runtime (whose poller is busy)
//	          does not call it a deadlock; only the init's watch can
package main

import (
	"fmt"
	"net"
	"os"
	"sync"
)

func deep(n int) {
	if n == 0 {
		panic("gohelper: boom")
	}
	deep(n - 1)
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gohelper panic|deadlock")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "panic":
		for i := range 30 {
			fmt.Println("working", i)
		}
		deep(40)
	case "deadlock":
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		go func() { l.Accept() }()
		var a, b sync.Mutex
		var locked sync.WaitGroup
		locked.Add(2)
		lockBoth := func(first, second *sync.Mutex) {
			first.Lock()
			locked.Done()
			locked.Wait() // each holds its first lock before either takes its second
			second.Lock()
		}
		go lockBoth(&a, &b)
		go lockBoth(&b, &a)
		select {}
	}
}
