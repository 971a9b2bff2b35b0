#!/usr/bin/env bash
# Builds the aws-auth reference decoder (test tooling) into tools/go-reference/bin/.
# GOPATH-only, offline: Debian's golang-go, golang-k8s-sigs-yaml-dev and golang-gopkg-yaml.v2-dev
# put their sources in /usr/share/gocode/src. No go.mod, no module download.
#
# encoding/json field-name folding: aws-iam-authenticator upstream is built with Go 1.26 (go.mod
# `go 1.26.0`, Dockerfile golang:1.26.4), without GOEXPERIMENT=jsonv2, so encoding/json is the v1
# code (files tagged `//go:build !goexperiment.jsonv2`). Its object decode (decode.go) looks a key
# up in fields.byExactName, then in fields.byFoldedName[foldName(key)], where the first field in
# declaration order wins a folded collision (encode.go typeFields). foldName (fold.go, Go >= 1.21)
# upper-cases ASCII a-z and replaces every other rune by foldRune(r): the smallest rune of r's
# unicode.SimpleFold orbit, so that foldName(x) == foldName(y) exactly when bytes.EqualFold(x, y)
# (fold_test.go FuzzEqualFold). K (U+212A) folds to K and ſ (U+017F) to S; İ (U+0130) and
# ı (U+0131) are orbits of their own (unicode tables.go caseOrbit) and fold to no ASCII letter.
# Sources: golang/go src/encoding/json/{fold.go,fold_test.go,decode.go,encode.go}.
# Debian's Go 1.19 decodes with foldFunc (a linear search, first equalFold match), equivalent to
# bytes.EqualFold for the authenticator's ASCII field names. The reference decodes with a copy of
# Go 1.19's encoding/json, made here in a temporary GOPATH (never committed) under the import path
# aws-auth-reference/json, whose foldFunc compares Go 1.26 foldName results instead; Go 1.19's
# foldFunc stays as foldFunc119 so that `aws-auth-reference -fold-fixtures` can show both agree.
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
# Keep Go 1.19's foldFunc under another name; the field lookup calls ours.
sed -i 's/^func foldFunc(/func foldFunc119(/' "$pkg/fold.go"
cat >"$pkg/fold_go126.go" <<'GO'
// Go 1.26 encoding/json field-name folding (fold.go foldName / foldRune), written for the aws-auth
// reference: the authenticator upstream is built with Go 1.26. See build.sh for the sources.
package json

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// foldName: ASCII a-z upper-cased, every other rune the smallest rune of its unicode.SimpleFold
// orbit, invalid UTF-8 as U+FFFD (utf8.DecodeRune's result).
func foldName(in []byte) []byte {
	out := make([]byte, 0, len(in))
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
		var buf [utf8.UTFMax]byte
		w := utf8.EncodeRune(buf[:], foldRune(r))
		out = append(out, buf[:w]...)
		i += n
	}
	return out
}

// foldRune is the smallest rune of r's simple case folding orbit.
func foldRune(r rune) rune {
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f < least {
			least = f
		}
	}
	return least
}

// foldFunc keeps Go 1.19's signature (decode.go calls f.equalFold(f.nameBytes, key) after an
// exact match failed, first field wins) and compares Go 1.26 folded names, which is what
// Go 1.26's fields.byFoldedName lookup decides.
func foldFunc(_ []byte) func(s, t []byte) bool {
	return func(s, t []byte) bool { return bytes.Equal(foldName(s), foldName(t)) }
}

// FoldName and FoldRune expose the rule to `aws-auth-reference -fold-fixtures`.
func FoldName(in []byte) []byte { return foldName(in) }
func FoldRune(r rune) rune      { return foldRune(r) }

// StockFold119 is Go 1.19's own case-insensitive field-name test, for the comparison.
func StockFold119(name, key []byte) bool { return foldFunc119(name)(name, key) }
GO
cd "$here"
GO111MODULE=off GOPATH="$tmp:/usr/share/gocode" GOPROXY=off GOFLAGS= GOCACHE="$cache" \
  go build -trimpath -o "$here/bin/aws-auth-reference" .
