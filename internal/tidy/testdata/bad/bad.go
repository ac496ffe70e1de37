// Package bad breaks every rule of the tidy test on purpose.
package bad

import (
	"math/rand"
	randv2 "math/rand/v2"
	"os"
	"sync"
	"time"
)

var mu sync.Mutex

// Leak does everything a universe must not.
func Leak(m map[string]int) int {
	go func() {}()
	n := int(time.Now().Unix()) + rand.Int()
	for k := range m {
		n += len(k)
	}
	_, _ = os.ReadFile("x")
	n += randv2.IntN(3)
	return n
}
