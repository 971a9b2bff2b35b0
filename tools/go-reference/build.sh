#!/usr/bin/env bash
# Builds the aws-auth reference decoder (test tooling) into tools/go-reference/bin/.
# GOPATH-only, offline: Debian's golang-go, golang-k8s-sigs-yaml-dev and golang-gopkg-yaml.v2-dev
# put their sources in /usr/share/gocode/src. No go.mod, no module download.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$here/bin"
cache="${GOCACHE:-$here/bin/.gocache}"
cd "$here"
GO111MODULE=off GOPATH=/usr/share/gocode GOPROXY=off GOFLAGS= GOCACHE="$cache" \
  go build -trimpath -o "$here/bin/aws-auth-reference" main.go
