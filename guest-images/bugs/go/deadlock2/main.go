// Command deadlock2: two sync.Mutex locked in opposite orders (a
// lock-order deadlock).
//
// Two accounts, each with its own mutex; transfer(from, to) locks the
// account it debits, then the one it credits. One clerk moves money from
// A to B four times, another from B to A three times, each with its own
// work (checks) before a transfer.
//
// The bug: the lock order follows the transfer's direction. If the first
// clerk holds A when the second locks B, each waits for the other: Go's
// runtime finds all goroutines asleep and exits 2. The window is the few
// instructions between a transfer's two Lock calls, and the clerks reach
// their transfers at different moments.
//
// Depth: two ordering constraints, one preemption: a clerk stopped
// between its two Locks while the other takes its first.
//
// The fix (-tags fixed): lock the account with the lower number first.
package main

import (
	"fmt"
	"sync"

	"everett/guest-images/bugs/go/internal/bug"
)

type account struct {
	id      int
	mu      sync.Mutex
	balance int
}

func transfer(from, to *account, amount int, h uint64) uint64 {
	first, second := from, to // BUG (without fixed): in the transfer's direction
	if bug.Fixed && to.id < from.id {
		first, second = to, from
	}
	first.mu.Lock()
	h = bug.Work(h, 30) // check the first account's limits
	bug.Window(5000000)
	second.mu.Lock()
	from.balance -= amount
	to.balance += amount
	second.mu.Unlock()
	first.mu.Unlock()
	return h
}

func main() {
	a, b := &account{id: 1, balance: 100}, &account{id: 2, balance: 100}
	var wg sync.WaitGroup
	var hs [2]uint64
	clerk := func(c int, from, to *account, n, rounds int) {
		defer wg.Done()
		var h uint64
		for i := 0; i < n; i++ {
			h ^= bug.Work(uint64(c*10+i), rounds) // check the request
			h = transfer(from, to, 10, h)
		}
		hs[c] = h
	}
	wg.Add(2)
	go clerk(0, a, b, 4, 60000)
	go clerk(1, b, a, 3, 77000)
	wg.Wait()
	if a.balance+b.balance != 200 {
		panic("money created or lost")
	}
	fmt.Printf("deadlock2: balances %d and %d (%02x)\n", a.balance, b.balance, (hs[0]^hs[1])&0xff)
}
