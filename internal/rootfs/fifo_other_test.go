//go:build !unix

package rootfs_test

import "errors"

func mkfifo(string) error { return errors.New("no mkfifo on this system") }
