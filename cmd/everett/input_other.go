//go:build !linux

package main

import "os"

// readInput reads the file at path whole.
func readInput(path string) ([]byte, error) { return os.ReadFile(path) }
