//go:build !linux

package board

import "os"

// readImage reads the file at path.
func readImage(path string) ([]byte, error) { return os.ReadFile(path) }
