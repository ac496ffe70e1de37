package gdbstub

// Numbers and bytes as the protocol writes them: addresses, lengths and
// thread ids in hex without a prefix, byte strings as two hex digits a byte.

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
)

// hexString is b as hex digits.
func hexString(b []byte) string { return hex.EncodeToString(b) }

// parseHex reads a hex number of at most 64 bits.
func parseHex(s string) (uint64, bool) {
	v, err := strconv.ParseUint(s, 16, 64)
	return v, err == nil
}

// parseAddrLen reads "addr,length", the operands of m, M, X and Z.
func parseAddrLen(s string) (addr, n uint64, ok bool) {
	a, l, found := strings.Cut(s, ",")
	if !found {
		return 0, 0, false
	}
	addr, ok1 := parseHex(a)
	n, ok2 := parseHex(l)
	return addr, n, ok1 && ok2
}

// Thread ids with a meaning of their own (Remote Protocol, "Packets",
// thread-id): -1 is every thread and 0 any thread; both mean the stop's
// thread here.
const (
	threadAll = -1
	threadAny = 0
)

// parseThread reads a thread id: "-1", or a hex number. The multiprocess
// form "pPID.TID" is not supported.
func parseThread(s string) (int, bool) {
	if s == "-1" {
		return threadAll, true
	}
	v, err := strconv.ParseUint(s, 16, 64)
	if err != nil || v > math.MaxInt32 {
		return 0, false
	}
	return int(v), true
}

// regHex is a register value as the protocol sends it: its 8 bytes, least
// significant first.
func regHex(v uint64) string {
	var b [regBytes]byte
	binary.LittleEndian.PutUint64(b[:], v)
	return hexString(b[:])
}

// unavailableReg is what the protocol sends for a register it cannot read.
const unavailableReg = "xxxxxxxxxxxxxxxx"

// parseRegHex reads a register value of exactly 16 hex digits.
func parseRegHex(s string) (uint64, bool) {
	if len(s) != 2*regBytes {
		return 0, false
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return 0, false
	}
	return binary.LittleEndian.Uint64(b), true
}
