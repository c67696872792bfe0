# The one image of the runner: the watcher, the worker, and (as the worker's `bake`
# subcommand) the program baker pods run. Baker pods give only arguments (`bake <file>
# <#colour>`), so the entrypoint is the worker; the Deployments name their program with
# `command:` (watcher or worker), found on PATH.
#
# Static binaries on distroless: no shell, no package manager, nothing to patch but the two
# programs. The image runs as a non-root user; the Deployments and the baker pods pin uid
# 65534 (see deploy/ and kube/baker.go).

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# .git stays out of the build context, so Go cannot read the commit: give the version, as
# `docker build --build-arg VERSION=$(git describe --tags --always --dirty) .`
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X liken.sh/runner/internal/version.Version=${VERSION}" -o /out/ ./cmd/worker ./cmd/watcher

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/worker /out/watcher /usr/local/bin/
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/worker"]
