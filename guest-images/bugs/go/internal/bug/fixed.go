//go:build fixed

package bug

// Fixed is true in the correct twin of a program (built with -tags fixed).
const Fixed = true
