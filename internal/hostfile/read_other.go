//go:build !linux

package hostfile

import "os"

// Read reads the file at path whole.
func Read(path string) ([]byte, error) { return os.ReadFile(path) }

// ReadOnce reads the file at path whole.
func ReadOnce(path string) ([]byte, error) { return os.ReadFile(path) }
