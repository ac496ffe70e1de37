package board

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseSize parses sizes like 4096, 64K, 64KiB, 256M, 256MiB, 1G, 1GiB.
func ParseSize(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	mult := uint64(1)
	for _, u := range []struct {
		suffix string
		mult   uint64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}} {
		if strings.HasSuffix(t, u.suffix) {
			t = strings.TrimSuffix(t, u.suffix)
			mult = u.mult
			break
		}
	}
	n, err := strconv.ParseUint(t, 10, 64)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("%q is not a size (want e.g. 256MiB)", s)
	}
	if n > (1<<40)/mult {
		return 0, fmt.Errorf("%q is larger than 1 TiB", s)
	}
	v := n * mult
	if v%4096 != 0 {
		return 0, fmt.Errorf("%q is not a multiple of 4 KiB", s)
	}
	return v, nil
}
