//go:build fixed

package gotest

// fixed selects the fixed Pool.Get (build tag "fixed").
const fixed = true
