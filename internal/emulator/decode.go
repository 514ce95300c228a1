package emulator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// decodeStrict decodes raw into dst, refusing unknown fields (so a
// misspelled field in a client shows up) and wrong JSON types, with a
// message that names the field under prefix (e.g. "parameters").
func decodeStrict(raw []byte, dst any, prefix string) *apiError {
	if len(bytes.TrimSpace(raw)) == 0 {
		return errInvalid("%s is required", orRoot(prefix))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return errInvalid("%s", describeDecodeError(err, prefix))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errInvalid("%s: unexpected data after the JSON value", orRoot(prefix))
	}
	return nil
}

func describeDecodeError(err error, prefix string) string {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		return fmt.Sprintf("field %s: wrong JSON type: got %s, want %s", join(prefix, typeErr.Field), typeErr.Value, typeErr.Type)
	case errors.As(err, &syntaxErr):
		return fmt.Sprintf("%s: malformed JSON at byte %d: %v", orRoot(prefix), syntaxErr.Offset, err)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return fmt.Sprintf("unknown field %q in %s", name, orRoot(prefix))
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return fmt.Sprintf("%s: truncated JSON", orRoot(prefix))
	}
	return fmt.Sprintf("%s: %v", orRoot(prefix), err)
}

// requireFields checks that each path is present (and not null) in raw.
// A path is dot-separated; "[]" after a name means every element of that
// array, e.g. "policies[].policyName".
func requireFields(raw []byte, prefix string, paths ...string) *apiError {
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return errInvalid("%s: %v", orRoot(prefix), err)
	}
	for _, p := range paths {
		if missing := findMissing(doc, strings.Split(p, "."), prefix); missing != "" {
			return errInvalid("missing required field %s", missing)
		}
	}
	return nil
}

func findMissing(doc any, parts []string, at string) string {
	if len(parts) == 0 {
		return ""
	}
	name, each := strings.CutSuffix(parts[0], "[]")
	obj, ok := doc.(map[string]any)
	if !ok {
		return "" // a type error is reported by decodeStrict
	}
	v, present := obj[name]
	here := join(at, name)
	if !present || v == nil {
		return here
	}
	if !each {
		return findMissing(v, parts[1:], here)
	}
	list, _ := v.([]any)
	for i, el := range list {
		if m := findMissing(el, parts[1:], fmt.Sprintf("%s[%d]", here, i)); m != "" {
			return m
		}
	}
	return ""
}

// oneOf checks an enum value; field names the field in messages.
func oneOf(field, value string, allowed ...string) *apiError {
	if slices.Contains(allowed, value) {
		return nil
	}
	return errInvalid("field %s: unknown value %q (allowed: %s)", field, value, strings.Join(allowed, ", "))
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	if name == "" {
		return prefix
	}
	return prefix + "." + name
}

func orRoot(prefix string) string {
	if prefix == "" {
		return "request body"
	}
	return prefix
}
