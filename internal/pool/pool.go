// Package pool runs numbered items on a fixed number of goroutines and
// hands their results back in item order, so that what a caller does with
// them never depends on how the host scheduled the goroutines.
//
// A panic in one item becomes that item's error (a *PanicError with the
// panic value and the stack) and the other items go on. Cancelling the
// context stops items from starting; an item that has started sees the
// cancellation through its context and decides itself when to stop.
package pool

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
)

// windowPerWorker bounds how far the workers run ahead of delivery: at
// most windowPerWorker×workers items are running or waiting to be
// delivered, so a fast worker cannot run ahead of a slow item without
// bound.
const windowPerWorker = 4

// ErrNotRun is wrapped by the error of an item that did not start because
// the context was done first.
var ErrNotRun = errors.New("not run")

// PanicError is an item that panicked.
type PanicError struct {
	Index int    // the item
	Value any    // what it panicked with
	Stack []byte // the panicking goroutine's stack
}

// Error implements error.
func (p *PanicError) Error() string {
	return fmt.Sprintf("item %d panicked: %v\n%s", p.Index, p.Value, p.Stack)
}

// Unwrap returns the panic value when it is an error.
func (p *PanicError) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}

// Workers returns n bounded to 1..items, with n ≤ 0 meaning every host
// core.
func Workers(n, items int) int {
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	return max(1, min(n, items))
}

// result is one item's result on its way back.
type result[T any] struct {
	i   int
	v   T
	err error
}

// Run calls work(ctx, i) for every i in 0..n-1 on Workers(workers, n)
// goroutines, and deliver(i, value, err) on the caller's goroutine for
// every i in increasing order. An item that panics is delivered with a
// *PanicError; one that did not start because ctx was done, with an error
// wrapping ErrNotRun and the context's cause. When deliver returns an
// error, Run cancels the context the items see, waits for the running
// items to return, and returns that error without delivering the rest.
// Run returns only when no goroutine it started is left.
func Run[T any](ctx context.Context, workers, n int, work func(ctx context.Context, i int) (T, error), deliver func(i int, v T, err error) error) error {
	if n <= 0 {
		return nil
	}
	workers = Workers(workers, n)
	window := windowPerWorker * workers
	ctx, cancel := context.WithCancel(ctx)
	todo := make(chan int)
	// done holds every result not yet taken: at most window items are
	// out at once, so a worker never waits to hand one back.
	done := make(chan result[T], window)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() { // determinism: ok — results are delivered by item index
			defer wg.Done()
			for i := range todo {
				v, err := call(ctx, i, work)
				done <- result[T]{i, v, err}
			}
		}()
	}
	defer func() {
		cancel() // first: a running item may be waiting for it
		close(todo)
		wg.Wait()
	}()

	// pending holds results that came back before an earlier item's, by
	// position in the window.
	pending := make([]*result[T], window)
	next, sent := 0, 0 // next to deliver, next to start
	for {
		for next < n && pending[next%window] != nil {
			r := pending[next%window]
			pending[next%window] = nil
			next++
			if err := deliver(r.i, r.v, r.err); err != nil {
				return err
			}
		}
		if next == n {
			return nil
		}
		if sent < n && sent-next < window {
			if ctx.Err() != nil {
				var zero T
				pending[sent%window] = &result[T]{sent, zero, fmt.Errorf("item %d: %w: %w", sent, ErrNotRun, context.Cause(ctx))}
				sent++
				continue
			}
			select {
			case todo <- sent:
				sent++
			case r := <-done:
				pending[r.i%window] = &r
			case <-ctx.Done(): // the items not started are not run
			}
			continue
		}
		// Item next is running: wait for a result.
		r := <-done
		pending[r.i%window] = &r
	}
}

// call runs one item, turning a panic into a *PanicError.
func call[T any](ctx context.Context, i int, work func(context.Context, int) (T, error)) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &PanicError{Index: i, Value: p, Stack: debug.Stack()}
		}
	}()
	return work(ctx, i)
}

// Result is one item's result.
type Result[T any] struct {
	Value T
	Err   error
}

// Map runs every item as Run does and returns the results by item.
func Map[T any](ctx context.Context, workers, n int, work func(ctx context.Context, i int) (T, error)) []Result[T] {
	out := make([]Result[T], max(n, 0))
	_ = Run(ctx, workers, n, work, func(i int, v T, err error) error {
		out[i] = Result[T]{v, err}
		return nil
	})
	return out
}
