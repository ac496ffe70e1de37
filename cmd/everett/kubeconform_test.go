package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"everett/internal/gotool"
)

// The manifests under deploy/k8s are checked by kubeconform against the
// schemas of a Kubernetes release. kubeconform is built from the Go module
// proxy into the cache; the schemas are made here from that release's
// OpenAPI document (api/openapi-spec/swagger.json of the k8s.io/kubernetes
// module, from the proxy too), strict: an object takes only the fields its
// definition names.
const (
	kubeconformVersion = "v0.7.0"
	kubernetesVersion  = "v1.31.4"
)

// kubeSchemas writes the JSON schemas of kinds into a directory, named as
// kubeconform looks them up ({{.ResourceKind}}{{.KindSuffix}}.json), and
// returns kubeconform's -schema-location for it.
func kubeSchemas(t *testing.T, kinds ...string) string {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", "k8s.io/kubernetes@"+kubernetesVersion)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("no Kubernetes schemas: go mod download k8s.io/kubernetes@%s: %v", kubernetesVersion, err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Skipf("no Kubernetes schemas: go mod download said %s", out)
	}
	b, err := os.ReadFile(filepath.Join(mod.Dir, "api", "openapi-spec", "swagger.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Definitions map[string]map[string]any `json:"definitions"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	either := map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}
	for name, d := range doc.Definitions {
		switch {
		case d["format"] == "int-or-string", strings.HasSuffix(name, ".api.resource.Quantity"):
			doc.Definitions[name] = either
		case d["properties"] != nil && d["additionalProperties"] == nil:
			d["additionalProperties"] = false
		}
	}
	dir := t.TempDir()
	want := map[string]bool{}
	for _, k := range kinds {
		want[k] = true
	}
	for name, d := range doc.Definitions {
		gvks, _ := d["x-kubernetes-group-version-kind"].([]any)
		for _, g := range gvks {
			gvk := g.(map[string]any)
			kind, group, version := gvk["kind"].(string), gvk["group"].(string), gvk["version"].(string)
			if !want[kind] || strings.Contains(version, "alpha") || strings.Contains(version, "beta") {
				continue
			}
			suffix := "-" + version
			if group != "" {
				suffix = "-" + strings.Split(group, ".")[0] + "-" + version
			}
			schema, err := json.Marshal(map[string]any{"$ref": "#/definitions/" + name, "definitions": doc.Definitions})
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, strings.ToLower(kind)+suffix+".json"), schema, 0o644); err != nil {
				t.Fatal(err)
			}
			delete(want, kind)
		}
	}
	if len(want) > 0 {
		t.Fatalf("no schema for %v in Kubernetes %s", want, kubernetesVersion)
	}
	return filepath.Join(dir, "{{ .ResourceKind }}{{ .KindSuffix }}.json")
}

func TestTheKubernetesManifestsAreValidForKubeconform(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kubeconform and reads Kubernetes' OpenAPI document")
	}
	bin, err := gotool.Build("github.com/yannh/kubeconform", kubeconformVersion, "github.com/yannh/kubeconform/cmd/kubeconform")
	if err != nil {
		t.Skipf("no kubeconform: %v", err)
	}
	loc := kubeSchemas(t, "Job", "Secret", "PersistentVolumeClaim")
	manifests, _ := filepath.Glob(filepath.Join("..", "..", "deploy", "k8s", "*.yaml"))
	if len(manifests) < 2 {
		t.Fatalf("manifests %v", manifests)
	}
	check := func(files ...string) (string, error) {
		out, err := exec.Command(bin, append([]string{"-strict", "-summary", "-schema-location", loc}, files...)...).CombinedOutput()
		return string(out), err
	}
	if out, err := check(manifests...); err != nil {
		t.Fatalf("kubeconform: %v\n%s", err, out)
	}
	// The check of the check: a misspelt field and a wrong type fail.
	job := string(deployFile(t, "k8s/explore-shared.yaml"))
	for _, bad := range []struct{ from, to string }{
		{"completionMode: Indexed", "completionMod: Indexed"},
		{"parallelism: 4", "parallelism: four"},
	} {
		p := filepath.Join(t.TempDir(), "bad.yaml")
		if err := os.WriteFile(p, []byte(strings.Replace(job, bad.from, bad.to, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := check(p); err == nil {
			t.Errorf("kubeconform accepted %q:\n%s", bad.to, out)
		}
	}
}
