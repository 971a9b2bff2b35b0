// Command aws-auth-reference decodes aws-auth ConfigMap data exactly as aws-iam-authenticator
// does, for the differential test (test/core/aws-auth.differential.test.ts). Test tooling, not product code.
//
// Copied from kubernetes-sigs/aws-iam-authenticator at commit
// 81b1daba00d194c00d3cdd8b0a0fece5ba648d4e (v0.7.18-11-g81b1dab, 2026-07-14):
//   - pkg/mapper/configmap/configmap.go: ParseMap, isSkippable
//   - pkg/config/types.go: RoleMapping, UserMapping, SSOARNMatcher (JSON field names)
//   - pkg/config/mapper.go: RoleMapping.Validate, UserMapping.Validate, SSOArnLike
//   - pkg/arn/arnlike.go: ArnLike, parse, preparePatternSections, quoteMeta
//   - pkg/endpoints/partitions.go: PARTITIONS
//
// and k8s.io/apimachinery/pkg/util/yaml ToJSON (JSON passthrough for a value starting with `{`,
// else sigs.k8s.io/yaml.YAMLToJSON), which ParseMap calls for mapRoles and mapUsers; mapAccounts
// goes through gopkg.in/yaml.v2 Unmarshal into []string, as upstream.
//
// Changes from upstream: slices.Contains is a loop (Go 1.19 has no slices package); logging and
// metrics removed; ParseMap's per-key outcome is reported instead of one joined error.
//
// Build: tools/go-reference/build.sh (GOPATH-only, Debian's golang-go, golang-k8s-sigs-yaml-dev,
// golang-gopkg-yaml.v2-dev). Upstream builds with Go 1.26, sigs.k8s.io/yaml v1.6.0 and
// gopkg.in/yaml.v2 v2.4.0; Debian gives Go 1.19, sigs.k8s.io/yaml 1.3.0 (YAMLToJSON unchanged
// since 1.1) and yaml.v2 2.4.0.
//
// I/O: one JSON object per stdin line, `{"id": any, "data": {"mapRoles": "...", ...}}` or
// `{"id": any, "manifest": "<ConfigMap YAML>"}` (data read the way the API server stores it);
// one JSON object per stdout line, in input order (see Result).
package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"unicode"

	// encoding/json of Go 1.19 with Go 1.26's field-name folding (foldName: the smallest rune of
	// each rune's unicode.SimpleFold orbit), as the authenticator upstream ships built with Go
	// 1.26; build.sh makes this package and cites the sources.
	json "aws-auth-reference/json"
	"gopkg.in/yaml.v2"
	sigsyaml "sigs.k8s.io/yaml"
)

// ---- pkg/config/types.go ----------------------------------------------------------------------

type RoleMapping struct {
	RoleARN  string         `json:"rolearn,omitempty" yaml:"rolearn,omitempty"`
	SSO      *SSOARNMatcher `json:"sso,omitempty" yaml:"sso,omitempty"`
	Username string         `json:"username" yaml:"username"`
	Groups   []string       `json:"groups" yaml:"groups"`
	UserId   string         `json:"userid,omitempty" yaml:"userid,omitempty"`
}

type UserMapping struct {
	UserARN  string   `json:"userarn" yaml:"userarn"`
	Username string   `json:"username" yaml:"username"`
	Groups   []string `json:"groups" yaml:"groups"`
	UserId   string   `json:"userid,omitempty" yaml:"userid,omitempty"`
}

type SSOARNMatcher struct {
	PermissionSetName string `json:"permissionSetName" yaml:"permissionSetName"`
	AccountID         string `json:"accountID" yaml:"accountID"`
	Partition         string `json:"partition,omitempty" yaml:"partition,omitempty"`
}

// ---- pkg/endpoints/partitions.go --------------------------------------------------------------

var PARTITIONS = []string{"aws", "aws-cn", "aws-us-gov", "aws-iso", "aws-iso-b", "aws-iso-e", "aws-iso-f", "aws-eusc"}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// ---- pkg/config/mapper.go ---------------------------------------------------------------------

func (m *RoleMapping) SSOArnLike() string {
	if m.SSO == nil {
		return ""
	}
	var partition string
	if m.SSO.Partition == "" {
		partition = "aws"
	}
	return strings.ToLower(fmt.Sprintf("arn:%s:iam::%s:role/AWSReservedSSO_%s_*", partition, m.SSO.AccountID, m.SSO.PermissionSetName))
}

func (m *RoleMapping) Validate() error {
	if m == nil {
		return fmt.Errorf("RoleMapping is nil")
	}
	if m.RoleARN == "" && m.SSO == nil {
		return fmt.Errorf("one of rolearn or SSO must be supplied")
	} else if m.RoleARN != "" && m.SSO != nil {
		return fmt.Errorf("only one of rolearn or SSO can be supplied")
	}
	if m.SSO != nil {
		accountIDRegexp := regexp.MustCompile("^[0-9]{12}$")
		if !accountIDRegexp.MatchString(m.SSO.AccountID) {
			return fmt.Errorf("AccountID '%s' is not a valid AWS Account ID", m.SSO.AccountID)
		}
		permissionSetNameRegexp := regexp.MustCompile(`^[\w+=,.@-]{1,32}$`)
		if !permissionSetNameRegexp.MatchString(m.SSO.PermissionSetName) {
			return fmt.Errorf("PermissionSetName '%s' is not a valid AWS SSO PermissionSet Name", m.SSO.PermissionSetName)
		}
		if m.SSO.Partition != "" && !containsString(PARTITIONS, m.SSO.Partition) {
			return fmt.Errorf("partition '%s' is not a valid AWS partition", m.SSO.Partition)
		}
		ssoArnLikeString := m.SSOArnLike()
		ok, err := ArnLike(ssoArnLikeString, "arn:*:iam:*:*:role/*")
		if err != nil {
			return fmt.Errorf("SSOArnLike '%s' is not valid: %v", ssoArnLikeString, err)
		} else if !ok {
			return fmt.Errorf("SSOArnLike '%s' did not match an ARN for a canonicalized IAM Role", ssoArnLikeString)
		}
	}
	return nil
}

func (m *UserMapping) Validate() error {
	if m == nil {
		return fmt.Errorf("UserMapping is nil")
	}
	if m.UserARN == "" {
		return fmt.Errorf("value for userarn must be supplied")
	}
	return nil
}

// ---- pkg/arn/arnlike.go -----------------------------------------------------------------------

func ArnLike(arn, pattern string) (bool, error) {
	arnSections, err := parseArn(arn)
	if err != nil {
		return false, fmt.Errorf("could not parse input arn: %v", err)
	}
	patternSections, err := parseArn(pattern)
	if err != nil {
		return false, fmt.Errorf("could not parse ArnLike string: %v", err)
	}
	preparePatternSections(patternSections)
	for index := range arnSections {
		patternGlob, err := regexp.Compile(patternSections[index])
		if err != nil {
			return false, fmt.Errorf("could not parse %s: %v", patternSections[index], err)
		}
		if !patternGlob.MatchString(arnSections[index]) {
			return false, nil
		}
	}
	return true, nil
}

func parseArn(input string) ([]string, error) {
	if !strings.HasPrefix(input, "arn:") {
		return nil, errors.New("invalid prefix")
	}
	arnSections := strings.SplitN(input, ":", 6)
	if len(arnSections) != 6 {
		return nil, errors.New("not enough sections")
	}
	return arnSections, nil
}

func preparePatternSections(arnLikeSlice []string) {
	for index, section := range arnLikeSlice {
		arnLikeSlice[index] = `^` + quoteMeta(section) + `$`
	}
}

func quoteMeta(s string) string {
	const specialChars = `\.+()|[]{}^$`
	var i int
	b := make([]byte, 2*len(s)-i)
	copy(b, s[:i])
	j := i
	for ; i < len(s); i++ {
		if strings.Contains(specialChars, s[i:i+1]) {
			b[j] = '\\'
			j++
		} else if s[i] == '*' || s[i] == '?' {
			b[j] = '.'
			j++
		}
		b[j] = s[i]
		j++
	}
	return string(b[:j])
}

// ---- k8s.io/apimachinery/pkg/util/yaml --------------------------------------------------------

func toJSON(data []byte) ([]byte, error) {
	if hasJSONPrefix(data) {
		return data, nil
	}
	return sigsyaml.YAMLToJSON(data)
}

func hasJSONPrefix(buf []byte) bool {
	trim := bytes.TrimLeftFunc(buf, unicode.IsSpace)
	return bytes.HasPrefix(trim, []byte("{"))
}

// ---- pkg/mapper/configmap/configmap.go --------------------------------------------------------

func isSkippable(data string) bool {
	trimmed := strings.TrimSpace(data)
	return trimmed == "" || trimmed == "``" || trimmed == "\"\"" || trimmed == "''"
}

// ---- ParseMap, one key at a time, reporting what it did --------------------------------------

// KeyResult is ParseMap's outcome for one data key.
//
//	status "missing": key absent; "skipped": isSkippable; "failed": the YAML (or JSON) front end
//	errored, or the top-level value is not a list or null, so the key keeps nothing (mapAccounts:
//	a decode error part-way keeps what yaml.v2 had filled in); "ok": a list or null was decoded.
type KeyResult struct {
	Status string `json:"status"`
	// The error ParseMap records for the key as a whole (front end or type error), if any.
	Error string `json:"error,omitempty"`
	// Kind of the decoded top-level value: array, null, object, string, number, bool.
	Top string `json:"top,omitempty"`
	// Entries decoded before validation (mapRoles/mapUsers).
	Decoded int `json:"decoded"`
	// Entries dropped by Validate, with their index among the decoded entries.
	Invalid []Invalid `json:"invalid"`
}

type Invalid struct {
	Index int    `json:"index"`
	Error string `json:"error"`
}

type RoleOut struct {
	Index int `json:"index"`
	RoleMapping
}

type UserOut struct {
	Index int `json:"index"`
	UserMapping
}

type Result struct {
	ID            json.RawMessage      `json:"id"`
	ManifestError string               `json:"manifestError,omitempty"`
	Crash         string               `json:"crash,omitempty"`
	Data          map[string]string    `json:"data,omitempty"`
	Keys          map[string]KeyResult `json:"keys"`
	Roles         []RoleOut            `json:"roles"`
	Users         []UserOut            `json:"users"`
	Accounts      []string             `json:"accounts"`
}

func topKind(j []byte) string {
	t := bytes.TrimLeft(j, " \t\r\n")
	if len(t) == 0 {
		return ""
	}
	switch t[0] {
	case '[':
		return "array"
	case '{':
		return "object"
	case '"':
		return "string"
	case 'n':
		return "null"
	case 't', 'f':
		return "bool"
	default:
		return "number"
	}
}

// decodeList is ParseMap's mapRoles/mapUsers branch up to json.Unmarshal.
func decodeList(value string, into interface{}) KeyResult {
	j, err := toJSON([]byte(value))
	if err != nil {
		return KeyResult{Status: "failed", Error: err.Error(), Invalid: []Invalid{}}
	}
	top := topKind(j)
	r := KeyResult{Status: "ok", Top: top, Invalid: []Invalid{}}
	if err := json.Unmarshal(j, into); err != nil {
		r.Error = err.Error()
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) || (top != "array" && top != "null") {
			r.Status = "failed"
		}
	}
	return r
}

func parseMap(m map[string]string) Result {
	res := Result{Keys: map[string]KeyResult{}, Roles: []RoleOut{}, Users: []UserOut{}, Accounts: []string{}}
	none := func(status string) KeyResult { return KeyResult{Status: status, Invalid: []Invalid{}} }

	if userData, ok := m["mapUsers"]; !ok {
		res.Keys["mapUsers"] = none("missing")
	} else if isSkippable(userData) {
		res.Keys["mapUsers"] = none("skipped")
	} else {
		raw := make([]UserMapping, 0)
		kr := decodeList(userData, &raw)
		kr.Decoded = len(raw)
		for i := range raw {
			if err := raw[i].Validate(); err != nil {
				kr.Invalid = append(kr.Invalid, Invalid{i, err.Error()})
			} else {
				res.Users = append(res.Users, UserOut{i, raw[i]})
			}
		}
		res.Keys["mapUsers"] = kr
	}

	if roleData, ok := m["mapRoles"]; !ok {
		res.Keys["mapRoles"] = none("missing")
	} else if isSkippable(roleData) {
		res.Keys["mapRoles"] = none("skipped")
	} else {
		raw := make([]RoleMapping, 0)
		kr := decodeList(roleData, &raw)
		kr.Decoded = len(raw)
		for i := range raw {
			if err := raw[i].Validate(); err != nil {
				kr.Invalid = append(kr.Invalid, Invalid{i, err.Error()})
			} else {
				res.Roles = append(res.Roles, RoleOut{i, raw[i]})
			}
		}
		res.Keys["mapRoles"] = kr
	}

	if accountsData, ok := m["mapAccounts"]; !ok {
		res.Keys["mapAccounts"] = none("missing")
	} else if isSkippable(accountsData) {
		res.Keys["mapAccounts"] = none("skipped")
	} else {
		awsAccounts := make([]string, 0)
		kr := KeyResult{Status: "ok", Invalid: []Invalid{}}
		err := yaml.Unmarshal([]byte(accountsData), &awsAccounts)
		// The root's kind, for the status. Decoding into interface{} can fail where []string does
		// not (an item `{{x}}` is a map with a map key: a type error for []string, "invalid map
		// key" for interface{}); then the root is known from the []string decode itself.
		var generic interface{}
		if yaml.Unmarshal([]byte(accountsData), &generic) == nil {
			switch generic.(type) {
			case nil:
				kr.Top = "null"
			case []interface{}:
				kr.Top = "array"
			case map[interface{}]interface{}:
				kr.Top = "object"
			case string:
				kr.Top = "string"
			case bool:
				kr.Top = "bool"
			default:
				kr.Top = "number"
			}
		}
		var te *yaml.TypeError
		isTypeError := err != nil && errors.As(err, &te)
		rootMismatch := isTypeError && strings.Contains(err.Error(), "into []string")
		if kr.Top == "" && (err == nil || (isTypeError && !rootMismatch)) {
			kr.Top = "array"
		}
		if err != nil {
			kr.Error = err.Error()
			if !isTypeError || rootMismatch || (kr.Top != "array" && kr.Top != "null") {
				kr.Status = "failed"
			}
		}
		if awsAccounts == nil {
			awsAccounts = []string{}
		}
		kr.Decoded = len(awsAccounts)
		res.Accounts = awsAccounts
		res.Keys["mapAccounts"] = kr
	}
	return res
}

// ---- the ConfigMap as the API server stores it ------------------------------------------------

// manifestData reads `data` from a ConfigMap manifest as kubectl + the API server do: YAML → JSON
// (first document), then JSON into map[string]string; any error means the object is refused.
func manifestData(manifest string) (map[string]string, error) {
	j, err := toJSON([]byte(manifest))
	if err != nil {
		return nil, err
	}
	var cm struct {
		Kind string            `json:"kind"`
		Data map[string]string `json:"data"`
	}
	if err := json.Unmarshal(j, &cm); err != nil {
		return nil, err
	}
	if cm.Kind != "" && cm.Kind != "ConfigMap" {
		return nil, fmt.Errorf("kind %q is not ConfigMap", cm.Kind)
	}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	return cm.Data, nil
}

type request struct {
	ID       json.RawMessage   `json:"id"`
	Data     map[string]string `json:"data"`
	Manifest *string           `json:"manifest"`
}

func handle(line []byte) (res Result) {
	var req request
	defer func() {
		if v := recover(); v != nil {
			res = Result{ID: req.ID, Crash: fmt.Sprint(v), Keys: map[string]KeyResult{}, Roles: []RoleOut{}, Users: []UserOut{}, Accounts: []string{}}
		}
	}()
	if err := json.Unmarshal(line, &req); err != nil {
		return Result{ID: json.RawMessage("null"), Crash: "bad request line: " + err.Error(), Keys: map[string]KeyResult{}, Roles: []RoleOut{}, Users: []UserOut{}, Accounts: []string{}}
	}
	data := req.Data
	if req.Manifest != nil {
		d, err := manifestData(*req.Manifest)
		if err != nil {
			return Result{ID: req.ID, ManifestError: err.Error(), Keys: map[string]KeyResult{}, Roles: []RoleOut{}, Users: []UserOut{}, Accounts: []string{}}
		}
		data = d
	}
	if data == nil {
		data = map[string]string{}
	}
	res = parseMap(data)
	res.ID = req.ID
	if req.Manifest != nil {
		res.Data = data
	}
	return res
}

func main() {
	if len(os.Args) >= 2 && os.Args[1] == "-fold-fixtures" {
		if err := foldFixtures(len(os.Args) == 3 && os.Args[2] == "-sweep"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		return
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer out.Flush()
	enc := json.NewEncoder(out)
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if e := enc.Encode(handle(line)); e != nil {
				fmt.Fprintln(os.Stderr, e)
				os.Exit(2)
			}
			// Answer each line at once when the reader is interactive (no more input buffered).
			if in.Buffered() == 0 {
				out.Flush()
			}
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
}
