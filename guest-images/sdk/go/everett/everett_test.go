package everett

import (
	"math"
	"testing"
	"time"
)

func TestKillNextDecodesTheDelayAndTheIndexAndRejectsWhatBreaksTheProtocol(t *testing.T) {
	for _, c := range []struct {
		name  string
		r     uint64
		n     int
		delay time.Duration
		index int
		ok    bool
	}{
		{"zero means no more kills", 0, 3, 0, 0, false},
		{"a delay of 250us for service 2", 250<<8 | 2, 3, 250 * time.Microsecond, 2, true},
		{"service 0 after one microsecond", 1 << 8, 1, time.Microsecond, 0, true},
		{"ENOSYS from a host without the operation", uint64(math.MaxUint64 - 37), 3, 0, 0, false},
		{"an index out of range", 5<<8 | 3, 3, 0, 0, false},
		{"a zero delay", 2, 3, 0, 0, false},
		{"ask again after 10ms", 10000<<8 | 0xff, 3, 10 * time.Millisecond, -1, true},
		{"ask again without a delay breaks the protocol", 0xff, 3, 0, 0, false},
		{"a delay longer than a Duration holds", (1<<55 - 1) << 8, 1, math.MaxInt64, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			delay, index, ok := decodeKillNext(c.r, c.n)
			if delay != c.delay || index != c.index || ok != c.ok {
				t.Errorf("decodeKillNext(%#x, %d) = %v, %d, %v; want %v, %d, %v", c.r, c.n, delay, index, ok, c.delay, c.index, c.ok)
			}
		})
	}
}

func TestEventAndKillNextDoNothingWhenTheSDKIsOff(t *testing.T) {
	if Enabled() {
		t.Skip("the SDK is on: this test runs where it is not (not riscv64)")
	}
	Event([]byte(`{"event":"start"}`)) // must not reach the hypercall (it panics here)
	if _, _, ok := KillNext(3); ok {
		t.Error("KillNext is ok with the SDK off")
	}
}
