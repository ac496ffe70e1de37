# everett — the two commands a new user runs are `make demo` and `make test`.
# Both install what they need (Debian packages) on first use.

GO      ?= go
BIN     := bin/everett
GOFILES := $(shell find . -name '*.go' -not -path './build/*' 2>/dev/null)

.PHONY: all build deps demo test check bench clean

all: build

build: $(BIN)

$(BIN): $(GOFILES) go.mod go.sum
	@mkdir -p bin
	$(GO) build -o $(BIN) ./cmd/everett

deps:
	@scripts/deps.sh

# The demo: for now, the SMP bare-metal demo program.
demo: deps build
	@$(MAKE) -s -C guest-images/demo
	$(BIN) run --smp 4 --stats build/demo/demo.elf

test: deps
	$(GO) test ./...

# check formats, vets and lints, and fails if that changed any file.
check:
	gofmt -l -w .
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
	$(GO) mod tidy
	@git diff --exit-code || (echo "check: the tree changed (see the diff above)"; exit 1)

bench: deps build
	@$(MAKE) -s -C guest-images/bench
	@scripts/bench.sh

clean:
	rm -rf bin build
