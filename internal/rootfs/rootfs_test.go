package rootfs_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"everett/guest-images/sdk/go/initramfs"
	"everett/internal/rootfs"
	"everett/internal/rootfs/rootfstest"
)

// listing describes an FS one line per entry, in Files order:
// "d 0755 /etc", "f 0644 /etc/hosts =contents", "l /bin -> usr/bin",
// "c 0600 /dev/console 5:1".
func listing(f *rootfs.FS) []string {
	var out []string
	for _, x := range f.Files() {
		switch x.Type {
		case rootfs.TypeDir:
			out = append(out, fmt.Sprintf("d %04o %s", x.Perm, x.Path))
		case rootfs.TypeFile:
			out = append(out, fmt.Sprintf("f %04o %s =%s", x.Perm, x.Path, x.Data))
		case rootfs.TypeSymlink:
			out = append(out, fmt.Sprintf("l %s -> %s", x.Path, x.Link))
		case rootfs.TypeCharDev:
			out = append(out, fmt.Sprintf("c %04o %s %d:%d", x.Perm, x.Path, x.Major, x.Minor))
		case rootfs.TypeBlockDev:
			out = append(out, fmt.Sprintf("b %04o %s %d:%d", x.Perm, x.Path, x.Major, x.Minor))
		}
	}
	return out
}

func sameListing(t *testing.T, f *rootfs.FS, want []string) {
	t.Helper()
	if got := listing(f); !slices.Equal(got, want) {
		t.Errorf("files:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// checkEntries checks what the initramfs needs of Entries, by an
// independent route: every entry's parent directory comes before it, no
// name twice, the count is Len, and the initramfs writer accepts them.
func checkEntries(t testing.TB, f *rootfs.FS) {
	t.Helper()
	entries := f.Entries()
	if len(entries) != f.Len() {
		t.Fatalf("%d entries, Len says %d", len(entries), f.Len())
	}
	dirs := map[string]bool{".": true}
	seen := map[string]bool{}
	var total int64
	for _, e := range entries {
		if strings.HasPrefix(e.Name, "/") || path.Clean(e.Name) != e.Name || e.Name == ".." || strings.HasPrefix(e.Name, "../") {
			t.Fatalf("entry name %q is not a clean relative path", e.Name)
		}
		if seen[e.Name] {
			t.Fatalf("entry %q twice", e.Name)
		}
		seen[e.Name] = true
		if !dirs[path.Dir(e.Name)] {
			t.Fatalf("entry %q comes before its parent directory", e.Name)
		}
		if e.Mode&0o170000 == 0o040000 {
			dirs[e.Name] = true
		}
		if e.Mode&0o170000 == 0o100000 {
			total += int64(len(e.Data))
		}
	}
	if total != f.Bytes() {
		t.Fatalf("files hold %d bytes, Bytes says %d", total, f.Bytes())
	}
	if err := initramfs.Write(io.Discard, entries); err != nil {
		t.Fatalf("the initramfs writer refuses the entries: %v", err)
	}
}

func writeFile(t *testing.T, p string, data []byte) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func gz(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	if _, err := z.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func mustTar(t testing.TB, members ...rootfstest.Member) []byte {
	t.Helper()
	b, err := rootfstest.Tar(members...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAFolderLoadsWithItsFilesDirectoriesSymlinksAndModesOwnedByRoot(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "usr/bin/app"), []byte("app"))
	writeFile(t, filepath.Join(dir, "etc/secret"), []byte("s"))
	writeFile(t, filepath.Join(dir, "usr/bin/su"), []byte("su"))
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("usr/bin", filepath.Join(dir, "bin")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/nowhere", filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	for p, mode := range map[string]fs.FileMode{
		"usr/bin/app": 0o755, "etc/secret": 0o600, "usr/bin/su": 0o755 | fs.ModeSetuid, "empty": 0o700 | fs.ModeSticky,
	} {
		if err := os.Chmod(filepath.Join(dir, p), mode); err != nil {
			t.Fatal(err)
		}
	}
	f, err := rootfs.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	sameListing(t, f, []string{
		"l /bin -> usr/bin",
		"l /dangling -> /nowhere",
		"d 1700 /empty",
		"d 0755 /etc",
		"f 0600 /etc/secret =s",
		"d 0755 /usr",
		"d 0755 /usr/bin",
		"f 0755 /usr/bin/app =app",
		"f 4755 /usr/bin/su =su",
	})
	if f.Config != nil {
		t.Errorf("a folder has an image configuration: %+v", f.Config)
	}
	checkEntries(t, f)
}

func TestAFolderWithAFIFOIsRefusedNamingIt(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := mkfifo(fifo); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	_, err := rootfs.Load(dir)
	if !errors.Is(err, rootfs.ErrUnsupported) || !strings.Contains(err.Error(), fifo) {
		t.Fatalf("error %v, want ErrUnsupported naming %s", err, fifo)
	}
}

// tarMembers is a small root filesystem with every kind of member.
var tarMembers = []rootfstest.Member{
	{Name: "./", Type: tar.TypeDir, Mode: 0o755},
	{Name: "./etc/", Type: tar.TypeDir, Mode: 0o755},
	{Name: "./etc/hostname", Mode: 0o644, Data: []byte("node")},
	{Name: "/usr/bin/app", Mode: 0o4755, Data: []byte("binary")}, // parents implicit, absolute name
	{Name: "usr/bin/app-again", Type: tar.TypeLink, Link: "./usr/bin/app"},
	{Name: "usr/bin/app-abs", Type: tar.TypeLink, Link: "/usr/bin/app"},
	{Name: "bin", Type: tar.TypeSymlink, Link: "usr/bin"},
	{Name: "dev/console", Type: tar.TypeChar, Mode: 0o600, Major: 5, Minor: 1},
	{Name: "dev/vda", Type: tar.TypeBlock, Mode: 0o660, Major: 254, Minor: 0},
	{Name: "tmp/", Type: tar.TypeDir, Mode: 0o1777},
}

var tarListing = []string{
	"l /bin -> usr/bin",
	"d 0755 /dev",
	"c 0600 /dev/console 5:1",
	"b 0660 /dev/vda 254:0",
	"d 0755 /etc",
	"f 0644 /etc/hostname =node",
	"d 1777 /tmp",
	"d 0755 /usr",
	"d 0755 /usr/bin",
	"f 4755 /usr/bin/app =binary",
	"f 4755 /usr/bin/app-abs =binary",
	"f 4755 /usr/bin/app-again =binary",
}

func TestATarAndATarGzLoadWithEveryKindOfMember(t *testing.T) {
	plain := mustTar(t, tarMembers...)
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"a plain tar", plain},
		{"a gzip-compressed tar", gz(t, plain)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, filepath.Join(t.TempDir(), "root.tar"), tc.data)
			f, err := rootfs.Load(p)
			if err != nil {
				t.Fatal(err)
			}
			sameListing(t, f, tarListing)
			if f.Config != nil {
				t.Errorf("a tar has an image configuration: %+v", f.Config)
			}
			checkEntries(t, f)
		})
	}
}

func TestTarMembersAreAppliedAsExtractionInsideAChrootWould(t *testing.T) {
	for _, tc := range []struct {
		name    string
		members []rootfstest.Member
		want    []string
	}{
		{
			name: "a later member replaces an earlier one, a directory's contents included",
			members: []rootfstest.Member{
				rootfstest.File("a/x", 0o644, "old"), rootfstest.File("a/x", 0o600, "new"),
				rootfstest.File("b/y", 0o644, "y"), rootfstest.File("b", 0o644, "b is a file now"),
			},
			want: []string{"d 0755 /a", "f 0600 /a/x =new", "f 0644 /b =b is a file now"},
		},
		{
			name: "a directory over a directory takes its mode and keeps its contents",
			members: []rootfstest.Member{
				rootfstest.File("d/x", 0o644, "x"), {Name: "d", Type: tar.TypeDir, Mode: 0o700},
			},
			want: []string{"d 0700 /d", "f 0644 /d/x =x"},
		},
		{
			name: "a member under a symbolic link lands where the link leads",
			members: []rootfstest.Member{
				rootfstest.Symlink("bin", "usr/bin"), rootfstest.File("bin/sh", 0o755, "sh"),
			},
			want: []string{"l /bin -> usr/bin", "d 0755 /usr", "d 0755 /usr/bin", "f 0755 /usr/bin/sh =sh"},
		},
		{
			name: "a link that climbs above the root stays at the root",
			members: []rootfstest.Member{
				rootfstest.Symlink("up", "../../../.."), rootfstest.File("up/etc/passwd", 0o644, "root"),
				rootfstest.Symlink("abs", "/etc"), rootfstest.File("abs/group", 0o644, "g"),
			},
			want: []string{"l /abs -> /etc", "d 0755 /etc", "f 0644 /etc/group =g", "f 0644 /etc/passwd =root", "l /up -> ../../../.."},
		},
		{
			name: "names that climb and come back are cleaned",
			members: []rootfstest.Member{
				rootfstest.File("a/../b/./c", 0o644, "c"), rootfstest.File("//d", 0o644, "d"),
			},
			want: []string{"d 0755 /b", "f 0644 /b/c =c", "f 0644 /d =d"},
		},
		{
			name: "a symbolic link is replaced, not followed, by a member at its own path",
			members: []rootfstest.Member{
				rootfstest.File("etc/hosts", 0o644, "hosts"), rootfstest.Symlink("h", "etc/hosts"),
				rootfstest.File("h", 0o644, "mine"),
			},
			want: []string{"d 0755 /etc", "f 0644 /etc/hosts =hosts", "f 0644 /h =mine"},
		},
		{
			name: "a hard link copies its target's contents and mode, and later changes to the target do not reach it",
			members: []rootfstest.Member{
				rootfstest.File("x", 0o751, "one"), {Name: "y", Type: tar.TypeLink, Link: "x"},
				rootfstest.File("x", 0o644, "two"),
			},
			want: []string{"f 0644 /x =two", "f 0751 /y =one"},
		},
		{
			name: "a hard link to a symbolic link copies the link",
			members: []rootfstest.Member{
				rootfstest.Symlink("l", "target"), {Name: "m", Type: tar.TypeLink, Link: "l"},
			},
			want: []string{"l /l -> target", "l /m -> target"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, filepath.Join(t.TempDir(), "root.tar"), mustTar(t, tc.members...))
			f, err := rootfs.Load(p)
			if err != nil {
				t.Fatal(err)
			}
			sameListing(t, f, tc.want)
			checkEntries(t, f)
		})
	}
}

func TestBadTarMembersAreErrorsThatNameThem(t *testing.T) {
	for _, tc := range []struct {
		name    string
		members []rootfstest.Member
		want    error
		names   string
	}{
		{"a name that climbs above the root", []rootfstest.Member{rootfstest.File("a/../../etc/passwd", 0o644, "x")}, rootfs.ErrUnsafePath, "a/../../etc/passwd"},
		{"a hard link whose target climbs above the root", []rootfstest.Member{{Name: "x", Type: tar.TypeLink, Link: "../../etc/shadow"}}, rootfs.ErrUnsafePath, "../../etc/shadow"},
		{"a hard link to nothing", []rootfstest.Member{{Name: "x", Type: tar.TypeLink, Link: "missing"}}, rootfs.ErrMalformed, "missing"},
		{"a hard link to a directory", []rootfstest.Member{rootfstest.Dir("d"), {Name: "x", Type: tar.TypeLink, Link: "d"}}, rootfs.ErrMalformed, "d"},
		{"a FIFO", []rootfstest.Member{{Name: "run/pipe", Type: tar.TypeFifo}}, rootfs.ErrUnsupported, "run/pipe"},
		{"a file under a regular file", []rootfstest.Member{rootfstest.File("f", 0o644, ""), rootfstest.File("f/g", 0o644, "")}, rootfs.ErrNotDir, "f/g"},
		{"a member through a loop of symbolic links", []rootfstest.Member{rootfstest.Symlink("a", "b"), rootfstest.Symlink("b", "a"), rootfstest.File("a/x", 0o644, "")}, rootfs.ErrTooLarge, "a/x"},
		{"a symbolic link with an empty target", []rootfstest.Member{rootfstest.Symlink("l", "")}, rootfs.ErrMalformed, "l"},
		{"a device number Linux cannot hold", []rootfstest.Member{{Name: "dev/x", Type: tar.TypeChar, Major: 5000, Minor: 1}}, rootfs.ErrMalformed, "dev/x"},
		{"a regular file at the root", []rootfstest.Member{rootfstest.File(".", 0o644, "")}, rootfs.ErrNotDir, "root"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, filepath.Join(t.TempDir(), "root.tar"), mustTar(t, tc.members...))
			_, err := rootfs.Load(p)
			t.Log(err)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.names) || !strings.Contains(err.Error(), p) {
				t.Errorf("error %q does not name %q and the archive", err, tc.names)
			}
		})
	}
}

func TestCorruptAndTruncatedArchivesAreErrors(t *testing.T) {
	plain := mustTar(t, tarMembers...)
	big := mustTar(t, rootfstest.File("big", 0o644, strings.Repeat("x", 5000)))
	compressed := gz(t, plain)
	corrupt := slices.Clone(compressed)
	corrupt[len(corrupt)/2] ^= 0xff
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"an empty file", nil, rootfs.ErrMalformed},
		{"text that is not a tar", []byte(strings.Repeat("hello, world\n", 100)), rootfs.ErrMalformed},
		{"a tar cut inside a file's data", big[:512+1000], rootfs.ErrMalformed},
		{"a tar cut inside a header", plain[:700], rootfs.ErrMalformed},
		{"a tar.gz cut in half", compressed[:len(compressed)/2], rootfs.ErrMalformed},
		{"a tar.gz with a flipped byte", corrupt, rootfs.ErrMalformed},
		{"a zstd-compressed tar", append([]byte{0x28, 0xb5, 0x2f, 0xfd}, plain...), rootfs.ErrUnsupported},
		{"an xz-compressed tar", append([]byte{0xfd, '7', 'z', 'X', 'Z', 0}, plain...), rootfs.ErrUnsupported},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, filepath.Join(t.TempDir(), "root.tar"), tc.data)
			_, err := rootfs.Load(p)
			t.Log(err)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), p) {
				t.Errorf("error %q does not name the archive", err)
			}
		})
	}
}

func TestLimitsAreErrorsThatNameThePathAndTheLimit(t *testing.T) {
	deep := strings.Repeat("d/", 40) + "f"
	for _, tc := range []struct {
		name    string
		lim     rootfs.Limits
		members []rootfstest.Member
		names   string
	}{
		{"too many entries", rootfs.Limits{Entries: 3}, []rootfstest.Member{rootfstest.File("a", 0o644, ""), rootfstest.File("b", 0o644, ""), rootfstest.File("c", 0o644, ""), rootfstest.File("d", 0o644, "")}, "/d: more than 3 entries"},
		{"a file too large", rootfs.Limits{FileBytes: 10}, []rootfstest.Member{rootfstest.File("big", 0o644, "12345678901")}, "big: 11 bytes (at most 10"},
		{"files too large together", rootfs.Limits{TotalBytes: 10}, []rootfstest.Member{rootfstest.File("a", 0o644, "123456"), rootfstest.File("b", 0o644, "123456")}, "b: 6 bytes make the files larger than 10"},
		{"hard-link copies too large together", rootfs.Limits{TotalBytes: 10}, []rootfstest.Member{rootfstest.File("a", 0o644, "123456"), {Name: "b", Type: tar.TypeLink, Link: "a"}}, "hard link to a"},
		{"a path too long", rootfs.Limits{PathBytes: 50}, []rootfstest.Member{rootfstest.File(deep, 0o644, "")}, "path of 81 bytes (at most 50)"},
		{"a path made too long through a symbolic link", rootfs.Limits{PathBytes: 50}, []rootfstest.Member{rootfstest.Symlink("l", strings.Repeat("x", 45)), rootfstest.File("l/yyyyyyyy", 0o644, "")}, "(at most 50)"},
		{"too many members", rootfs.Limits{Members: 2}, []rootfstest.Member{rootfstest.Dir("a"), rootfstest.Dir("a"), rootfstest.Dir("a")}, "more than 2 archive members"},
		{"paths too long to resolve in all", rootfs.Limits{ResolveSteps: 100}, []rootfstest.Member{rootfstest.Symlink("l", strings.Repeat("./", 60)+"d"), rootfstest.File("l/a", 0o644, ""), rootfstest.File("l/b", 0o644, "")}, "resolving paths took more than 100 steps"},
		{"too many symbolic links on a path", rootfs.Limits{SymlinkHops: 2}, []rootfstest.Member{rootfstest.Symlink("a", "b"), rootfstest.Symlink("b", "c"), rootfstest.Symlink("c", "d"), rootfstest.File("a/x", 0o644, "")}, "more than 2 levels of symbolic links"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, filepath.Join(t.TempDir(), "root.tar"), mustTar(t, tc.members...))
			_, err := rootfs.LoadLimits(p, tc.lim)
			t.Log(err)
			if !errors.Is(err, rootfs.ErrTooLarge) {
				t.Fatalf("error %v, want ErrTooLarge", err)
			}
			if !strings.Contains(err.Error(), tc.names) {
				t.Errorf("error %q does not say %q", err, tc.names)
			}
			// The same archive loads with the default limits.
			if _, err := rootfs.Load(p); err != nil && !strings.Contains(tc.name, "symbolic links on a path") {
				t.Errorf("with the default limits: %v", err)
			}
		})
	}
}

func TestAGzipBombIsStoppedByTheStreamLimit(t *testing.T) {
	// A directory member whose header claims 64 MiB of data: the reader
	// skips the data, which decompresses from almost nothing.
	var buf bytes.Buffer
	z, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(z)
	if err := tw.WriteHeader(&tar.Header{Name: "f", Typeflag: tar.TypeReg, Size: 64 << 20, Mode: 0o644}); err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyN(tw, zeros{}, 64<<20); err != nil {
		t.Fatal(err)
	}
	tw.Close()
	z.Close()
	p := writeFile(t, filepath.Join(t.TempDir(), "bomb.tar.gz"), buf.Bytes())
	_, err := rootfs.LoadLimits(p, rootfs.Limits{TotalBytes: 1 << 20, Members: 16})
	if !errors.Is(err, rootfs.ErrTooLarge) {
		t.Fatalf("error %v, want ErrTooLarge", err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

func TestAddHostPathCopiesLikeCp(t *testing.T) {
	host := t.TempDir()
	prog := writeFile(t, filepath.Join(host, "server"), []byte("server"))
	if err := os.Chmod(prog, 0o755); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(host, "data")
	writeFile(t, filepath.Join(data, "db/0.log"), []byte("log"))
	writeFile(t, filepath.Join(data, "conf"), []byte("new conf"))
	if err := os.Symlink("db/0.log", filepath.Join(data, "current")); err != nil {
		t.Fatal(err)
	}
	base := func(t *testing.T) *rootfs.FS {
		p := writeFile(t, filepath.Join(t.TempDir(), "root.tar"), mustTar(t,
			rootfstest.Symlink("bin", "usr/bin"), rootfstest.Dir("usr/bin"), rootfstest.File("usr/bin/sh", 0o755, "sh"),
			rootfstest.Symlink("lib", "usr/lib"),
			rootfstest.Member{Name: "srv", Type: tar.TypeDir, Mode: 0o700},
			rootfstest.File("srv/conf", 0o600, "old conf"), rootfstest.File("srv/keep", 0o644, "keep"),
		))
		f, err := rootfs.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	image := []string{
		"l /bin -> usr/bin", "l /lib -> usr/lib", "d 0700 /srv", "f 0600 /srv/conf =old conf", "f 0644 /srv/keep =keep",
		"d 0755 /usr", "d 0755 /usr/bin", "f 0755 /usr/bin/sh =sh",
	}
	with := func(lines ...string) []string { return with2(image, lines...) }
	for _, tc := range []struct {
		name, host, guest string
		want              []string
	}{
		{"a file goes to a new path, its parents made", prog, "/opt/app/server", with("d 0755 /opt", "d 0755 /opt/app", "f 0755 /opt/app/server =server")},
		{"a file goes into a directory named with a trailing slash", prog, "/opt/", with("d 0755 /opt", "f 0755 /opt/server =server")},
		{"a file goes into an existing directory under its own name", prog, "/usr/bin", with("f 0755 /usr/bin/server =server")},
		{"a file goes through a symbolic link in the path", prog, "/bin/server", with("f 0755 /usr/bin/server =server")},
		{"a file replaces a file", prog, "/usr/bin/sh", replaceLine(image, "f 0755 /usr/bin/sh =sh", "f 0755 /usr/bin/sh =server")},
		{"a folder merges into an existing directory, which keeps its mode", data, "/srv", with2(replaceLine(image, "f 0600 /srv/conf =old conf", "f 0644 /srv/conf =new conf"), "l /srv/current -> db/0.log", "d 0755 /srv/db", "f 0644 /srv/db/0.log =log")},
		{"a folder goes through a symbolic link at its own path", data, "/lib", with("d 0755 /usr/lib", "f 0644 /usr/lib/conf =new conf", "l /usr/lib/current -> db/0.log", "d 0755 /usr/lib/db", "f 0644 /usr/lib/db/0.log =log")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := base(t)
			if err := f.AddHostPath(tc.host, tc.guest); err != nil {
				t.Fatal(err)
			}
			sameListing(t, f, tc.want)
			checkEntries(t, f)
		})
	}
}

// compareListingLines orders listing lines as Files does: by path,
// component by component.
func compareListingLines(a, b string) int {
	pa, pb := listingPath(a), listingPath(b)
	return slices.Compare(strings.Split(pa, "/"), strings.Split(pb, "/"))
}

func listingPath(line string) string {
	for _, w := range strings.Fields(line) {
		if strings.HasPrefix(w, "/") {
			return w
		}
	}
	return ""
}

func replaceLine(lines []string, old, new string) []string {
	out := slices.Clone(lines)
	out[slices.Index(out, old)] = new
	return out
}

func with2(lines []string, more ...string) []string {
	out := append(slices.Clone(lines), more...)
	slices.SortFunc(out, compareListingLines)
	return out
}

func TestAddHostPathRefusesWhatItCannotPlace(t *testing.T) {
	host := t.TempDir()
	prog := writeFile(t, filepath.Join(host, "server"), []byte("server"))
	data := filepath.Join(host, "data")
	writeFile(t, filepath.Join(data, "x"), []byte("x"))
	for _, tc := range []struct {
		name, host, guest string
		want              error
	}{
		{"a file under a regular file", prog, "/etc/hosts/server", rootfs.ErrNotDir},
		{"a folder onto a regular file", data, "/etc/hosts", rootfs.ErrNotDir},
		{"a guest path above the root", prog, "/../server", rootfs.ErrUnsafePath},
		{"a missing host file", filepath.Join(host, "missing"), "/x", fs.ErrNotExist},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := rootfs.New(rootfs.Limits{})
			if err := f.Add(rootfs.File{Path: "/etc/hosts", Type: rootfs.TypeFile, Perm: 0o644, Data: []byte("h")}); err != nil {
				t.Fatal(err)
			}
			err := f.AddHostPath(tc.host, tc.guest)
			t.Log(err)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.host) {
				t.Errorf("error %q does not name %s", err, tc.host)
			}
		})
	}
}

func TestAddPutsEverettsOwnFilesAndLookupFollowsLinks(t *testing.T) {
	f := rootfs.New(rootfs.Limits{})
	for _, file := range []rootfs.File{
		{Path: "/usr/bin/server", Type: rootfs.TypeFile, Perm: 0o755, Data: []byte("v1")},
		{Path: "/bin", Type: rootfs.TypeSymlink, Link: "usr/bin"},
		{Path: "/init", Type: rootfs.TypeFile, Perm: 0o755, Data: []byte("init")},
		{Path: "/dev/console", Type: rootfs.TypeCharDev, Perm: 0o600, Major: 5, Minor: 1},
		{Path: "/bin/server", Type: rootfs.TypeFile, Perm: 0o700, Data: []byte("v2")}, // through the link: replaces
		{Path: "/tmp", Type: rootfs.TypeDir, Perm: 0o1777},
	} {
		if err := f.Add(file); err != nil {
			t.Fatal(err)
		}
	}
	sameListing(t, f, []string{
		"l /bin -> usr/bin", "d 0755 /dev", "c 0600 /dev/console 5:1", "f 0755 /init =init",
		"d 1777 /tmp", "d 0755 /usr", "d 0755 /usr/bin", "f 0700 /usr/bin/server =v2",
	})
	got, err := f.Lookup("/bin/server")
	if err != nil || got.Path != "/usr/bin/server" || string(got.Data) != "v2" {
		t.Errorf("Lookup(/bin/server) = %+v, %v; want /usr/bin/server holding v2", got, err)
	}
	if got, err := f.Lookup("/bin"); err != nil || got.Path != "/usr/bin" || got.Type != rootfs.TypeDir {
		t.Errorf("Lookup(/bin) = %+v, %v; want the directory /usr/bin", got, err)
	}
	if _, err := f.Lookup("/bin/nothing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Lookup(/bin/nothing): %v, want fs.ErrNotExist", err)
	}
	if err := f.Add(rootfs.File{Path: "/", Type: rootfs.TypeFile}); !errors.Is(err, rootfs.ErrNotDir) {
		t.Errorf("a file at the root: %v, want ErrNotDir", err)
	}
	checkEntries(t, f)
}

func TestTwoLoadsOfTheSameInputGiveByteIdenticalInitramfs(t *testing.T) {
	p := writeFile(t, filepath.Join(t.TempDir(), "root.tar"), mustTar(t, tarMembers...))
	var out [2]bytes.Buffer
	for i := range out {
		f, err := rootfs.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := initramfs.Write(&out[i], f.Entries()); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(out[0].Bytes(), out[1].Bytes()) {
		t.Fatal("two loads of one archive give different initramfs")
	}
}

func TestArgvIsTheEntrypointFollowedByTheCmd(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  rootfs.ImageConfig
		want []string
	}{
		{"entrypoint and cmd", rootfs.ImageConfig{Entrypoint: []string{"/app", "-v"}, Cmd: []string{"serve"}}, []string{"/app", "-v", "serve"}},
		{"cmd alone", rootfs.ImageConfig{Cmd: []string{"/bin/sh", "-c", "true"}}, []string{"/bin/sh", "-c", "true"}},
		{"entrypoint alone", rootfs.ImageConfig{Entrypoint: []string{"/app"}}, []string{"/app"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.cfg.Argv()
			if !slices.Equal(got, tc.want) {
				t.Errorf("Argv() = %q, want %q", got, tc.want)
			}
			got[0] = "changed"
			if tc.cfg.Argv()[0] == "changed" {
				t.Error("Argv shares its slice with the configuration")
			}
		})
	}
}

func gunzip(b []byte) ([]byte, error) {
	z, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(z)
}
