# The two commands a new user needs are `make run` (the whole system, locally) and `make test`
# (every test, integration tests included; CI runs exactly this). The first time on a machine,
# each builds the tools it needs from the Go module proxy into the user's cache folder, where
# every checkout finds them (hack/tools.sh; the README gives the times on 2 cores).

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
GO ?= go
WORKFLOWCHECK := go.temporal.io/sdk/contrib/tools/workflowcheck@v0.6.0
ACTIONLINT := github.com/rhysd/actionlint/cmd/actionlint@v1.7.12
CACHE = $(or $(LIKEN_CACHE),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/liken)
KUBECTL = $(CACHE)/kube-v1.37.2/kubectl
# What each target runs, for hack/tools.sh, which builds each tool the first time it is needed:
# dev mode runs the control plane with kwok, Temporal's dev server and local indiservers
# (loopback.so keeps them on 127.0.0.1); a real node adds its kubelet, containerd and CoreDNS,
# the registry it pulls from, and the INDI trees its images are made of; the bench adds
# Temporal's server on PostgreSQL. The tests run all of it, and the arm64 runner under qemu.
RUN_TOOLS := kube kwok temporal indi loopback
NODE_TOOLS := $(RUN_TOOLS) node registry indi-images
BENCH_TOOLS := $(RUN_TOOLS) temporal-server postgres
TOOLS = bash hack/tools.sh --for "make $@"

.PHONY: run test test-faults check build images tools generate bench bench-scale histories screenshots clean

## run: start the local stack, the CRDs, examples/, the watcher and the worker (Ctrl-C stops);
## NODE=1 runs them on a real node instead, with deploy/ installed (needs root);
## RUN_FLAGS passes flags on, such as RUN_FLAGS="-session 10m" (./bin/run -h lists them)
run: build
	$(TOOLS) $(if $(NODE),$(NODE_TOOLS),$(RUN_TOOLS)) > /dev/null
	./bin/run $(if $(NODE),-node) $(RUN_FLAGS)

## test: every check and every test, as CI runs them, in two lanes side by side: every package
## with the race detector; and beside it e2e/faults, which mostly waits out the faults it makes
## (Temporal away for a minute, a heartbeat's timeout), then the end-to-end tests each package
## of POSTGRES_E2E names (testenv's AlsoOnPostgres) again on Temporal's server with PostgreSQL,
## one package at a time. build/images runs first, without the race detector: its test
## compresses the release's images, a gigabyte through compress/flate in one goroutine, which
## the detector slows eightfold (six minutes instead of forty seconds) and where it has no race
## to find.
POSTGRES_E2E := ./e2e ./e2e/faults ./e2e/reservation
NO_RACE := liken.sh/runner/build/images
BESIDE := liken.sh/runner/e2e/faults
test:
	$(TOOLS) > /dev/null
	$(MAKE) --no-print-directory check
	$(GO) test -count=1 -timeout 15m $(NO_RACE)
	set +e; \
	{ $(GO) test -race -count=1 -timeout 30m $(BESIDE) && \
	  LIKEN_TEMPORAL=postgres $(GO) test -race -count=1 -p 1 -timeout 30m $(POSTGRES_E2E); } & beside=$$!; \
	$(GO) test -race -count=1 -timeout 60m $$($(GO) list ./... | grep -vx -e $(NO_RACE) -e $(BESIDE)); main=$$?; \
	wait $$beside; beside=$$?; \
	[ $$main = 0 ] && [ $$beside = 0 ]

## test-faults: only the fault tests (e2e/faults; make test runs them too)
test-faults:
	$(TOOLS) $(RUN_TOOLS) > /dev/null
	$(GO) test -race -count=1 -timeout 30m -v ./e2e/faults

## check: formatting, vet, workflow determinism, generated files up to date, the versions the
## runner and hack/kubebins share aligned, deploy/ renders, the pipeline's workflows (actionlint)
check:
	$(TOOLS) kube > /dev/null
	@bad=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$bad" ]; then echo "gofmt would change: $$bad"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(WORKFLOWCHECK) ./workflows/...
	bash hack/generate.sh --check
	bash hack/aligned.sh
	$(KUBECTL) kustomize deploy/ > /dev/null
	$(KUBECTL) kustomize deploy/temporal/postgres > /dev/null
	$(GO) run $(ACTIONLINT)

## build: the worker and watcher binaries, and the run command, into bin/, stamped with
## VERSION (default: git describe; `./bin/worker --version` prints it)
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-X liken.sh/runner/internal/version.Version=$(VERSION)" -o bin/ ./cmd/worker ./cmd/watcher ./hack/run

## images: build and push every image a cluster runs from this project (the runner's, indi,
## indi-simulators, indi-open) as indexes for linux/amd64 and linux/arm64, without Docker:
## make images REGISTRY=registry.example/liken TAG=v0.1.0 (the INDI images keep INDI's tag; the server's, which holds the site guard, adds TAG);
## LATEST=1 tags the runner's image latest as well, as main's builds do for deploy/ on main;
## DEBS=a.deb,b.deb builds instead a driver image of one's own from Debian package files (a
## vendor's driver and its SDK, for each CPU), named after the driver's package (NAME=...)
## and tagged with its version unless TAG says otherwise (docs/hardware.md)
images:
	$(TOOLS) indi-images > /dev/null
	$(GO) run ./hack/images -registry "$(REGISTRY)" -tag "$(TAG)" $(if $(LATEST),-latest) $(if $(DEBS),-debs "$(DEBS)") $(if $(NAME),-name "$(NAME)")

## tools: build every tool the tests run, once per machine, into the user's cache folder
## ($$XDG_CACHE_HOME/liken, else ~/.cache/liken; LIKEN_CACHE moves it); install Debian's
## indi-bin, postgresql and the real node's packages if missing
tools:
	$(TOOLS)

## generate: CRDs and deepcopy code from the Go types in kube/
generate:
	bash hack/generate.sh

## bench: the Go micro-benchmarks, then the people bench on the real stack, printed side by side
bench:
	$(TOOLS) $(BENCH_TOOLS) > /dev/null
	$(GO) test -run '^$$' -bench . -benchmem ./pictures/ ./indi/ ./kube/...
	$(GO) run ./hack/bench

## bench-scale: ten thousand Persons (not in make bench nor make test): 1,000, then 5,000, then
## 10,000, each with its rate, peak RSS, Temporal's database and a watcher restart's cost;
## SCALE=200,500 sets the steps
SCALE ?= 1000,5000,10000
bench-scale:
	$(TOOLS) $(BENCH_TOOLS) > /dev/null
	$(GO) run ./hack/bench -scale $(SCALE)

## screenshots: the Temporal UI guide's pictures (docs/*.png), from a fresh local observatory
screenshots: build
	$(TOOLS) $(RUN_TOOLS) > /dev/null
	$(GO) run ./hack/screenshots

## histories: record what the workflows do now into workflows/testdata/histories/unreleased
## (on purpose only; a release's folder, such as v0.1.0/, is recorded once and kept)
histories:
	$(TOOLS) $(RUN_TOOLS) > /dev/null
	$(GO) test -count=1 -run TestRecordHistories ./workflows -record

clean:
	rm -rf bin
