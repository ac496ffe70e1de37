package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"testing"
	"time"

	"gocloud.dev/blob"

	"everett/explorer"
	"everett/explorer/bucket"
	"everett/internal/gotool"
)

// The S3 server of the integration test: gofakes3's command, built from the
// Go module proxy into everett's cache (internal/gotool) on first use.
const (
	fakeS3Module  = "github.com/johannesboyne/gofakes3"
	fakeS3Version = "v1.2.0"
)

// startS3 starts an S3 server on loopback with an empty bucket "everett"
// and returns the bucket's URL; the AWS credentials it takes are set in
// the environment of the test and of the processes it starts.
func startS3(t *testing.T) string {
	t.Helper()
	bin, err := gotool.Build(fakeS3Module, fakeS3Version, fakeS3Module+"/cmd/gofakes3")
	if err != nil {
		t.Skipf("no S3 server: building %s@%s failed: %v", fakeS3Module, fakeS3Version, err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	srv := exec.Command(bin, "-backend", "memory", "-host", addr, "-initialbucket", "everett", "-quiet")
	srv.Stdout, srv.Stderr = io.Discard, io.Discard
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Process.Kill()
		srv.Wait()
	})
	for deadline := time.Now().Add(30 * time.Second); ; {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the S3 server did not listen on %s: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": "everett", "AWS_SECRET_ACCESS_KEY": "everett", "AWS_REGION": "us-east-1",
		"AWS_CONFIG_FILE": os.DevNull, "AWS_SHARED_CREDENTIALS_FILE": os.DevNull, "AWS_EC2_METADATA_DISABLED": "true",
	} {
		t.Setenv(k, v)
	}
	return fmt.Sprintf("s3://everett?endpoint=http://%s&region=us-east-1&use_path_style=true", addr)
}

// s3Objects lists and reads a bucket's claims and records.
func s3Objects(t *testing.T, b *blob.Bucket) ([]claimObj, []*explorer.BatchRecord) {
	t.Helper()
	ctx := context.Background()
	var claims []claimObj
	var recs []*explorer.BatchRecord
	for _, prefix := range []string{"claims/", "done/"} {
		it := b.List(&blob.ListOptions{Prefix: prefix})
		for {
			o, err := it.Next(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			body, err := b.ReadAll(ctx, o.Key)
			if err != nil {
				t.Fatal(err)
			}
			if prefix == "done/" {
				r := &explorer.BatchRecord{}
				if err := json.Unmarshal(body, r); err != nil {
					t.Fatalf("%s: %v", o.Key, err)
				}
				recs = append(recs, r)
				continue
			}
			var c struct {
				Base   int    `json:"base"`
				End    int    `json:"end"`
				Gen    int    `json:"generation"`
				Worker string `json:"worker"`
			}
			if json.Unmarshal(body, &c) == nil {
				claims = append(claims, claimObj{Base: c.Base, End: c.End, Gen: c.Gen, Worker: c.Worker})
			}
		}
	}
	return claims, recs
}

func TestThreeWorkersOnAnS3BucketRunEveryUniverseOnceWhenOneIsKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an S3 server and runs three workers")
	}
	url := startS3(t)
	bin := everettBinary(t)
	b, err := bucket.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	list := func() ([]claimObj, []*explorer.BatchRecord) { return s3Objects(t, b) }
	runSharedSearch(t, bin, url, os.Environ(), list)
}
