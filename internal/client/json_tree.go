package client

// Walking a decoded JSON document (maps, slices and scalars, as
// encoding/json decodes into an any): the recursions over it (redactTree,
// redactValue, isAllNull) differ only in what they do at each member, so
// the walk itself is written once, here.

// rebuildJSON is a copy of the object or array v, each member replaced by
// member(name, value) and each element by element(value), and true. A
// scalar or null is no container: it comes back as it is, with false.
// v itself is not changed.
func rebuildJSON(v any, member func(name string, x any) any, element func(x any) any) (any, bool) {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = member(k, x)
		}
		return out, true
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = element(x)
		}
		return out, true
	}
	return v, false
}

// jsonChildren is the members' values of the object v, or the elements of
// the array v, and true; false for a scalar or null.
func jsonChildren(v any) ([]any, bool) {
	switch t := v.(type) {
	case map[string]any:
		out := make([]any, 0, len(t))
		for _, x := range t {
			out = append(out, x)
		}
		return out, true
	case []any:
		return t, true
	}
	return nil, false
}
