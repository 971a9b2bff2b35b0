#!/usr/bin/env bash
# Builds the aws-auth reference decoder (test tooling) into tools/go-reference/bin/.
# GOPATH-only, offline: Debian's golang-go, golang-k8s-sigs-yaml-dev and golang-gopkg-yaml.v2-dev
# put their sources in /usr/share/gocode/src. No go.mod, no module download.
#
# encoding/json field folding: aws-iam-authenticator upstream is built with Go 1.26, whose
# encoding/json matches a JSON key to a struct field by foldName (Go >= 1.21 fold.go,
# appendFoldedName: per rune unicode.ToUpper(unicode.ToLower(r))), so `ı` and `İ` fold to `I`.
# Debian's Go 1.19 still has the older foldFunc, which does not. So the reference decodes with a
# copy of Go 1.19's encoding/json, made here in a temporary GOPATH (never committed) under the
# import path aws-auth-reference/json, whose foldFunc is replaced by the Go >= 1.21 rule.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$here/bin"
cache="${GOCACHE:-$here/bin/.gocache}"
goroot="$(go env GOROOT)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
pkg="$tmp/src/aws-auth-reference/json"
mkdir -p "$pkg"
for f in "$goroot"/src/encoding/json/*.go; do
  case "$f" in *_test.go) continue ;; esac
  cp "$f" "$pkg/"
done
# Keep Go 1.19's foldFunc under another name (unused); the field lookup calls ours.
sed -i 's/^func foldFunc(/func foldFunc119(/' "$pkg/fold.go"
cat >"$pkg/fold_go121.go" <<'GO'
// Go >= 1.21 encoding/json field-name folding (fold.go foldName / appendFoldedName), written for
// the aws-auth reference: the authenticator upstream is built with Go 1.26.
package json

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// foldName returns a folded form of in: ASCII a-z upper-cased, every other rune
// unicode.ToUpper(unicode.ToLower(r)), invalid UTF-8 as U+FFFD (utf8.DecodeRune's result).
func foldName(in []byte) []byte {
	out := make([]byte, 0, len(in))
	var buf [utf8.UTFMax]byte
	for i := 0; i < len(in); {
		if c := in[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(in[i:])
		w := utf8.EncodeRune(buf[:], unicode.ToUpper(unicode.ToLower(r)))
		out = append(out, buf[:w]...)
		i += n
	}
	return out
}

// foldFunc keeps Go 1.19's signature (decode.go calls f.equalFold(f.nameBytes, key) after an
// exact match failed, first field wins) and compares the Go >= 1.21 folded names, which is what
// Go >= 1.21's fields.byFoldedName lookup decides.
func foldFunc(_ []byte) func(s, t []byte) bool {
	return func(s, t []byte) bool { return bytes.Equal(foldName(s), foldName(t)) }
}
GO
cd "$here"
GO111MODULE=off GOPATH="$tmp:/usr/share/gocode" GOPROXY=off GOFLAGS= GOCACHE="$cache" \
  go build -trimpath -o "$here/bin/aws-auth-reference" main.go
