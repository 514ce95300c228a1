package review

import (
	"maps"
	"math/big"
	"slices"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// request builds the policyset request for an assignment of values to
// paths; false when a keyword refuses the values (never for values the
// catalogue types, which are the only ones the sampler makes). keys are
// assign's, sorted.
func request(typ string, assign map[string]any, keys []string, approvers []policyset.User) (policyset.Request, bool) {
	req := policyset.Request{Type: typ, Approvers: approvers}
	keywords := map[string]map[string]any{}
	for _, p := range keys {
		v := assign[p]
		_, kw, field, _ := pathType(p)
		switch {
		case strings.HasPrefix(p, "activity.params."):
			if req.Params == nil {
				req.Params = map[string]any{}
			}
			req.Params[field] = languageValue(v)
		case strings.HasPrefix(p, "private_key."):
			if req.PrivateKey == nil {
				req.PrivateKey = &policyset.PrivateKey{}
			}
			setKeyField(req.PrivateKey, field, v)
		case kw != "":
			if keywords[kw] == nil {
				keywords[kw] = map[string]any{}
			}
			keywords[kw][field] = languageValue(v)
		}
	}
	for _, kw := range slices.Sorted(maps.Keys(keywords)) {
		if err := req.SetKeyword(kw, keywords[kw]); err != nil {
			return req, false
		}
	}
	return req, true
}

func setKeyField(k *policyset.PrivateKey, field string, v any) {
	switch x := v.(type) {
	case string:
		if field == "id" {
			k.ID = x
		} else {
			k.Label = x
		}
	case []string:
		k.Tags = x
	case bool:
		if field == "imported" {
			k.Imported = x
		} else {
			k.Exported = x
		}
	}
}

// languageValue is a sample value as the language reads it.
func languageValue(v any) any {
	switch x := v.(type) {
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	case *big.Int:
		return new(big.Int).Set(x)
	}
	return v
}
