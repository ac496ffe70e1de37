package workload

import (
	"fmt"
	"math"
	"sort"

	"github.com/anishathalye/porcupine"
)

// The history is checked with porcupine against a model of one key (keys
// are independent, so the history is checked key by key). A write without
// a known outcome may have taken effect at any time after its call, or
// never: it returns at infinity. A read without a known outcome says
// nothing and is dropped.

// absent is the model's state of a key that holds no value.
const absent = "\x00absent"

var keyModel = porcupine.Model{
	Init: func() interface{} { return absent },
	Step: func(state, input, output interface{}) (bool, interface{}) {
		s := state.(string)
		r := input.(*record)
		known := r.ret >= 0
		switch r.kind {
		case opInit:
			if r.found {
				return true, r.got
			}
			return true, absent
		case opGet:
			if r.found {
				return s == r.got, s
			}
			return s == absent, s
		case opPut:
			return true, r.value
		case opDelete:
			return true, absent
		}
		// cas
		holds := s == r.expect || r.expect == "" && s == absent
		if known && holds != r.swapped {
			return false, s
		}
		if holds {
			return true, r.value
		}
		return true, s
	},
	DescribeOperation: func(input, output interface{}) string { return input.(*record).String() },
}

// violation is a key whose history is not linearizable.
type violation struct {
	summary string
	ops     []*record // the key's operations, by call time
}

// checkHistory returns the first key (in name order) whose history is not
// linearizable, or nil.
func checkHistory(history []*record) *violation {
	byKey := map[string][]*record{}
	for _, r := range history {
		if r.kind == opGet && r.ret < 0 {
			continue // failed: says nothing
		}
		byKey[r.key] = append(byKey[r.key], r)
	}
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		rs := byKey[k]
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].call < rs[j].call })
		ops := make([]porcupine.Operation, len(rs))
		for i, r := range rs {
			ret := r.ret
			if ret < 0 && r.kind != opInit {
				ret = math.MaxInt64
			}
			ops[i] = porcupine.Operation{ClientId: r.worker, Input: r, Call: r.call, Output: nil, Return: ret}
		}
		if !porcupine.CheckOperations(keyModel, ops) {
			return &violation{
				summary: fmt.Sprintf("key %s: no order of its %d operations agrees with every result", k, len(rs)),
				ops:     rs,
			}
		}
	}
	return nil
}
