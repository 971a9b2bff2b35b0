// `aws-auth-reference -fold-fixtures [-sweep]`: how encoding/json (the reference's, i.e. Go 1.26's
// field lookup, see build.sh) matches JSON keys to the authenticator's field names. Reads a JSON
// array of keys on stdin, writes one JSON object (FoldFixtures) on stdout; `-sweep` adds the
// substitution sweep (80 million keys, about 15 s of CPU). Recorded by
// record-fold-fixtures.ts into test/fixtures/aws-auth/go-field-fold.json, which pins the
// product's rule without the Go toolchain.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"strings"
	"unicode"
	"unicode/utf8"

	refjson "aws-auth-reference/json"
)

// AsciiFold is a rune outside ASCII whose fold is an ASCII letter.
type AsciiFold struct {
	Rune string `json:"rune"`
	Char string `json:"char"`
	Fold string `json:"fold"`
}

// KeyMatch is the field each struct's decode sets from a key (absent when none).
type KeyMatch struct {
	Key           string `json:"key"`
	RoleMapping   string `json:"RoleMapping,omitempty"`
	UserMapping   string `json:"UserMapping,omitempty"`
	SSOARNMatcher string `json:"SSOARNMatcher,omitempty"`
}

type FoldFixtures struct {
	Go      string `json:"go"`
	Unicode string `json:"unicode"`
	// Every rune above U+007F whose fold (FoldRune) is ASCII: the whole sweep of U+0080..U+10FFFF.
	AsciiFolds []AsciiFold `json:"asciiFolds"`
	// Every field name with one byte replaced by any rune above U+007F (U+0080..U+10FFFF, not
	// surrogates): how many keys were tried, which matched the field under the reference's rule,
	// and on how many Go 1.19's own foldFunc decided otherwise.
	Substitutions *Substitutions `json:"substitutions,omitempty"`
	Keys          []KeyMatch     `json:"keys"`
}

type Substitutions struct {
	Tried             int      `json:"tried"`
	Matching          []string `json:"matching"`
	StockGo119Differs int      `json:"stockGo119Differs"`
}

var fieldNames = []string{"rolearn", "sso", "username", "groups", "userid", "userarn", "permissionSetName", "accountID", "partition"}

// matchedField decodes {key: probe} into a fresh T for a string, a list and a mapping probe (one
// fits each field type) and returns the json name of the field that changed.
func matchedField(key string, typ reflect.Type) string {
	k, _ := json.Marshal(key)
	for _, probe := range []string{`"v"`, `["v"]`, `{"accountID":"v"}`} {
		v := reflect.New(typ)
		_ = refjson.Unmarshal([]byte(fmt.Sprintf("{%s:%s}", k, probe)), v.Interface())
		for i := 0; i < typ.NumField(); i++ {
			if !v.Elem().Field(i).IsZero() {
				return strings.Split(typ.Field(i).Tag.Get("json"), ",")[0]
			}
		}
	}
	return ""
}

func foldFixtures(sweep bool) error {
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		return err
	}
	var keys []string
	if err := json.Unmarshal(in, &keys); err != nil {
		return fmt.Errorf("stdin: a JSON array of keys: %v", err)
	}
	out := FoldFixtures{Go: runtime.Version() + " + Go 1.26 field folding (build.sh)", Unicode: unicode.Version}
	for r := rune(utf8.RuneSelf); r <= unicode.MaxRune; r++ {
		if f := refjson.FoldRune(r); f < utf8.RuneSelf {
			out.AsciiFolds = append(out.AsciiFolds, AsciiFold{fmt.Sprintf("%U", r), string(r), string(f)})
		}
	}
	if sweep {
		out.Substitutions = substitutions()
	}
	for _, key := range keys {
		out.Keys = append(out.Keys, KeyMatch{
			Key:           key,
			RoleMapping:   matchedField(key, reflect.TypeOf(RoleMapping{})),
			UserMapping:   matchedField(key, reflect.TypeOf(UserMapping{})),
			SSOARNMatcher: matchedField(key, reflect.TypeOf(SSOARNMatcher{})),
		})
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

func substitutions() *Substitutions {
	s := &Substitutions{Matching: []string{}}
	buf := make([]byte, 0, 64)
	for _, name := range fieldNames {
		folded := string(refjson.FoldName([]byte(name)))
		for i := 0; i < len(name); i++ {
			for r := rune(utf8.RuneSelf); r <= unicode.MaxRune; r++ {
				if r >= 0xD800 && r <= 0xDFFF {
					continue
				}
				buf = append(append(utf8.AppendRune(append(buf[:0], name[:i]...), r)), name[i+1:]...)
				s.Tried++
				ours := string(refjson.FoldName(buf)) == folded
				if ours {
					s.Matching = append(s.Matching, string(buf))
				}
				if refjson.StockFold119([]byte(name), buf) != ours {
					s.StockGo119Differs++
				}
			}
		}
	}
	return s
}
