# everett — the two commands a new user runs are `make demo` and `make test`.
# Both install what they need (Debian packages) on first use.

GO      ?= go
BIN     := bin/everett
GOFILES := $(shell find . -name '*.go' -not -path './build/*' 2>/dev/null)

.PHONY: demo-etcd all build deps guest-images demo test nightly check bench bench-debug bench-bugs bench-litmus clean

all: build

build: $(BIN)

$(BIN): $(GOFILES) go.mod go.sum
	@mkdir -p bin
	$(GO) build -o $(BIN) ./cmd/everett

deps:
	@scripts/deps.sh

# The Linux guest (kernel, initramfs, disk). Cached outside the clone, keyed
# by the recipes' inputs: only the first build on a machine is slow.
guest-images: deps
	@$(MAKE) -s -C guest-images/linux all >/dev/null

# The demo: explore the replicated key-value example (three Linux nodes)
# until the explorer finds its bug, then replay the report exactly.
demo: deps build guest-images
	@scripts/demo.sh

demo-etcd: deps build guest-images
	@scripts/demo-etcd.sh

test: deps guest-images
	$(GO) test -timeout 45m ./...

# The control runs at their full size (explorer/control_test.go): 200
# universes of the kv store with its bug fixed, which take 20 to 40
# minutes on two cores (make test runs 8), besides the other controls.
nightly: deps guest-images
	EVERETT_CONTROL=full $(GO) test -timeout 3h -v -run 'TestControl' ./explorer

# check formats, vets and lints, and fails if that changed any file.
check:
	gofmt -l -w .
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
	$(GO) mod tidy
	@git diff --exit-code || (echo "check: the tree changed (see the diff above)"; exit 1)

bench: deps build guest-images
	@$(MAKE) -s -C guest-images/bench
	@scripts/bench.sh
	@scripts/bench-boot.sh
	@scripts/bench-fork.sh
	@scripts/bench-explore.sh
	@scripts/bench-kernel.sh
	@scripts/bench-shared.sh

# The reverse debugger on a 2.6e9-instruction Linux report (absolute wall
# times: no peer goes backward through such a run).
bench-debug: deps build guest-images
	@scripts/bench-debug.sh

# The bug suite (guest-images/bugs): for each program, how rare its bug is
# natively, and how soon explore finds it from seeds 1-5 with and without
# preemptions where harts communicate; its twin's verdict. Long (up to an
# hour and more for all): BUGS="counter go-leak" for a subset, and the
# BUGS_* variables of scripts/bench-bugs.sh (BUGS_TIME=60s, ...).
bench-bugs: deps build guest-images
	@scripts/bench-bugs.sh $(BUGS)

# The weak-memory model against the public RISC-V litmus suite and the
# oracle of litmus/oracle.go, per family: allowed outcomes shown, forbidden
# ones shown (must be 0), runs/s. RUNS=1000 K=1 (every K-th file) MODELS="rvwmo sc".
bench-litmus:
	@scripts/bench-litmus.sh $(or $(RUNS),1000) $(or $(K),1) "$(or $(MODELS),rvwmo sc)"

clean:
	rm -rf bin build
