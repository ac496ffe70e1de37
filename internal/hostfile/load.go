package hostfile

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Files loaded in this process, by path and file identity. A process
// that loads one report or snapshot many times (several reports replayed
// in one run, a debugger restarting) read and hashed the etcd example's
// three disks and kernels, about 1 GB, for every load: 0.45 s of SHA-256
// and a second of page faults a replay (2026-12-05). An image's bytes are
// never written (machines and disks copy what they change), so loads of
// an unchanged file share them. A file is taken as unchanged while its
// size and modification time are; a file rewritten in place within the
// same modification time to the same size would be missed.
var loaded struct {
	sync.Mutex
	entries []loadedFile // oldest first
}

// Load keeps the last LoadEntries files of LoadMinBytes or more; smaller
// ones are read and hashed again (it costs little).
const (
	LoadEntries  = 8
	LoadMinBytes = 1 << 20
)

type loadedFile struct {
	path  string
	size  int64
	mtime time.Time
	data  []byte
	sha   string
}

// Load returns the bytes of the file at path, as Read does, and their
// SHA-256 in hex. A file this process loaded before and that has not
// changed since (same size and modification time) is neither read nor
// hashed again: the bytes are the same slice, which callers must not
// write.
func Load(path string) ([]byte, string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, "", err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	loaded.Lock()
	for _, e := range loaded.entries {
		if e.path == abs && e.size == st.Size() && e.mtime.Equal(st.ModTime()) {
			loaded.Unlock()
			return e.data, e.sha, nil
		}
	}
	loaded.Unlock()
	b, err := Read(path)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(b)
	sha := hex.EncodeToString(sum[:])
	if int64(len(b)) != st.Size() || len(b) < LoadMinBytes {
		return b, sha, nil // changed while read, or small
	}
	loaded.Lock()
	defer loaded.Unlock()
	loaded.entries = append(loaded.entries, loadedFile{abs, st.Size(), st.ModTime(), b, sha})
	if len(loaded.entries) > LoadEntries {
		loaded.entries = loaded.entries[1:]
	}
	return b, sha, nil
}
