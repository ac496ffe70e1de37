//go:build !fixed

package bug

// Fixed is false in the program with its bug (built without -tags fixed).
const Fixed = false
