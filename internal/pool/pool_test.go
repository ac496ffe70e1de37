package pool

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestResultsAreDeliveredInItemOrderWhateverTheDelays(t *testing.T) {
	const n = 200
	delays := make([]time.Duration, n)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range delays {
		delays[i] = time.Duration(r.IntN(300)) * time.Microsecond
	}
	for _, workers := range []int{1, 3, 8, 64} {
		var got []int
		err := Run(context.Background(), workers, n, func(_ context.Context, i int) (int, error) {
			time.Sleep(delays[i])
			return i * i, nil
		}, func(i, v int, err error) error {
			if err != nil {
				t.Fatalf("item %d: %v", i, err)
			}
			if v != i*i {
				t.Fatalf("item %d delivered %d, want %d", i, v, i*i)
			}
			got = append(got, i)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != n {
			t.Fatalf("%d workers: %d items delivered, want %d", workers, len(got), n)
		}
		for k, i := range got {
			if k != i {
				t.Fatalf("%d workers: delivery %d was item %d", workers, k, i)
			}
		}
	}
}

func TestAPanickingItemBecomesItsErrorAndTheOthersComplete(t *testing.T) {
	const n = 50
	res := Map(context.Background(), 4, n, func(_ context.Context, i int) (string, error) {
		if i == 17 {
			panic("boom in 17")
		}
		return "ok", nil
	})
	for i, r := range res {
		if i == 17 {
			var pe *PanicError
			if !errors.As(r.Err, &pe) {
				t.Fatalf("item 17: error %v, want a *PanicError", r.Err)
			}
			if pe.Index != 17 || pe.Value != "boom in 17" || !strings.Contains(string(pe.Stack), "pool_test.go") {
				t.Fatalf("item 17: panic %d %v, stack:\n%s", pe.Index, pe.Value, pe.Stack)
			}
			if !strings.Contains(pe.Error(), "boom in 17") {
				t.Fatalf("the panic's error %q does not say what it panicked with", pe.Error())
			}
			continue
		}
		if r.Err != nil || r.Value != "ok" {
			t.Fatalf("item %d: %q, %v", i, r.Value, r.Err)
		}
	}
}

func TestAPanicWithAnErrorUnwrapsToIt(t *testing.T) {
	sentinel := errors.New("sentinel")
	res := Map(context.Background(), 2, 3, func(_ context.Context, i int) (int, error) {
		if i == 1 {
			panic(sentinel)
		}
		return i, nil
	})
	if !errors.Is(res[1].Err, sentinel) {
		t.Fatalf("item 1: %v, want it to wrap the panic's error", res[1].Err)
	}
}

func TestCancellingTheContextStopsItemsFromStarting(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var started atomic.Int64
	const n = 100
	var notRun, ran int
	err := Run(ctx, 2, n, func(ctx context.Context, i int) (int, error) {
		started.Add(1)
		if i == 5 {
			cancel()
		}
		return i, nil
	}, func(i, v int, err error) error {
		switch {
		case errors.Is(err, ErrNotRun):
			notRun++
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("item %d: %v, want it to name the cancellation", i, err)
			}
		case err != nil:
			t.Fatalf("item %d: %v", i, err)
		default:
			ran++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if ran+notRun != n || notRun == 0 || int(started.Load()) != ran {
		t.Fatalf("%d ran, %d not run, %d started, of %d", ran, notRun, started.Load(), n)
	}
	// At most the window (4 per worker) can have started after item 5.
	if ran > 6+windowPerWorker*2 {
		t.Fatalf("%d items ran after the context was cancelled at item 5", ran)
	}
}

func TestADeliveryErrorEndsTheRunAndCancelsTheRunningItems(t *testing.T) {
	stop := errors.New("stop here")
	var delivered int
	var sawCancel atomic.Bool
	// Five workers: items 0-3 return only once item 4 has started, so
	// that when item 3's delivery stops the run, item 4 is running
	// however the host schedules the goroutines.
	running := make(chan struct{})
	err := Run(context.Background(), 5, 1000, func(ctx context.Context, i int) (int, error) {
		switch {
		case i < 4:
			<-running
		case i == 4:
			close(running)
			fallthrough
		default:
			select {
			case <-ctx.Done():
				sawCancel.Store(true)
			case <-time.After(10 * time.Second):
			}
		}
		return i, nil
	}, func(i, v int, err error) error {
		delivered++
		if i == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || delivered != 4 || !sawCancel.Load() {
		t.Fatalf("err %v after %d deliveries (cancel seen: %v), want %v after 4", err, delivered, sawCancel.Load(), stop)
	}
}

func TestWorkersAreBoundedByTheItems(t *testing.T) {
	if got := Workers(8, 3); got != 3 {
		t.Fatalf("Workers(8, 3) = %d", got)
	}
	if got := Workers(0, 0); got != 1 {
		t.Fatalf("Workers(0, 0) = %d", got)
	}
	if got := Workers(0, 1<<20); got < 1 {
		t.Fatalf("Workers(0, many) = %d", got)
	}
}

func TestNoItemsDeliverNothing(t *testing.T) {
	err := Run(context.Background(), 4, 0, func(context.Context, int) (int, error) {
		t.Fatal("work called")
		return 0, nil
	}, func(int, int, error) error {
		t.Fatal("deliver called")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
