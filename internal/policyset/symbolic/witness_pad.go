package symbolic

import (
	"cmp"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// maxWitnessElements bounds what padCounts adds to one witness, counting
// every element and every field of a struct element: 1,048,576 strings
// (a count compared with 10^6 needs 1,000,001) are about 16 MB while
// the witness is replayed; its rows then say the list by its size. A
// witness that would need more is not built, and its question is "not
// proved".
const maxWitnessElements = 1 << 20

// padCounts grows the witness's lists until each bounded count reaches
// the threshold the model says it reaches: the model's slots hold a few
// elements, a request may need 70,001. The elements added are copies of
// one that counts, appended, so that every quantifier reads values it
// has read already; an approver copied gets an id of its own, and its
// credential comes with it. The engine's replay judges the result.
func (q *question) padCounts(model []bool, tree map[string]any) error {
	e := q.e
	budget := maxWitnessElements
	// copied are, by list, how many copies of each slot were added.
	copied := map[string]map[int]int64{}
	// Outer lists first: an approver is copied before its tags grow, so
	// that the copies do not carry them.
	keys := slices.SortedFunc(maps.Keys(e.bounds), func(a, b string) int {
		return cmp.Or(cmp.Compare(len(e.bounds[a].path), len(e.bounds[b].path)), strings.Compare(a, b))
	})
	for _, key := range keys {
		b := e.bounds[key]
		if cl := e.classes[b.path]; cl != nil {
			if cl.bounds[0] == b {
				if err := q.padClasses(model, tree, cl, &budget); err != nil {
					return err
				}
			}
			continue
		}
		need := b.need(model)
		list, ok := lookupPath(tree, b.path).([]any)
		if need == nil || !ok {
			continue // no threshold reached, or the list is absent and the count errs
		}
		at := b.path
		if at == "credentials" {
			at = "approvers" // one credential per approver
		}
		have := int64(0)
		for i, k := range b.kept {
			if i < len(list) && modelValue(model, k) {
				have++
			}
		}
		for src, n := range copied[at] {
			if modelValue(model, b.kept[src]) {
				have += n
			}
		}
		missing := new(big.Int).Sub(need, big.NewInt(have))
		if missing.Sign() <= 0 {
			continue
		}
		src := q.padSource(model, b, keys, len(list))
		if src < 0 {
			return fmt.Errorf("no element of %s counts, though the model says some do", b.path)
		}
		weight := size(list[src])
		if at == "approvers" {
			weight = q.approverSize(tree, src)
		}
		if !missing.IsInt64() || missing.Int64()*int64(weight) > int64(budget) {
			return q.tooLarge(need, weight, b.path)
		}
		budget -= int(missing.Int64()) * weight
		if copied[at] == nil {
			copied[at] = map[int]int64{}
		}
		copied[at][src] += missing.Int64()
		if at == "approvers" {
			q.padApprovers(tree, src, int(missing.Int64()))
			continue
		}
		setPath(tree, b.path, append(list, copies(list[src], int(missing.Int64()))...))
	}
	return nil
}

// padClasses appends to cl's list the further elements of each class
// the model says (count_classes.go), as copies of a slot of the class.
func (q *question) padClasses(model []bool, tree map[string]any, cl *countClasses, budget *int) error {
	path := cl.bounds[0].path
	list, ok := lookupPath(tree, path).([]any)
	if !ok {
		return nil // the list is absent, and its counts err
	}
	further := cl.furtherElements(model, len(list))
	for t, n := range further {
		if n.Sign() == 0 {
			continue
		}
		src := cl.slotOf(model, t, len(list))
		if src < 0 {
			return fmt.Errorf("no element of %s is of a class the model copies", path)
		}
		weight := size(list[src])
		if !n.IsInt64() || n.Int64()*int64(weight) > int64(*budget) {
			return q.tooLarge(new(big.Int).Add(n, big.NewInt(int64(len(list)))), weight, path)
		}
		*budget -= int(n.Int64()) * weight
		list = append(list, copies(list[src], int(n.Int64()))...)
	}
	setPath(tree, path, list)
	return nil
}

// tooLarge is the error of a witness whose list needs more elements
// than maxWitnessElements.
func (q *question) tooLarge(need *big.Int, weight int, path string) error {
	fields := ""
	if weight > 1 {
		fields = fmt.Sprintf(" of %d values each", weight)
	}
	return fmt.Errorf("a witness needs %s elements%s in %s, more than the %s values the analysis builds, for %s",
		groupDigits(need.String()), fields, path, Thousands(maxWitnessElements), q.overs())
}

// padSource is the slot to copy for b: one that counts for b, and for
// as few of the list's other bounded counts as may be (each copy counts
// for them too); -1 if none counts.
func (q *question) padSource(model []bool, b *countBound, keys []string, n int) int {
	best, fewest := -1, 0
	for i, k := range b.kept {
		if i >= n || !modelValue(model, k) {
			continue
		}
		others := 0
		for _, key := range keys {
			o := q.e.bounds[key]
			if o != b && o.path == b.path && i < len(o.kept) && modelValue(model, o.kept[i]) {
				others++
			}
		}
		if best < 0 || others < fewest {
			best, fewest = i, others
		}
	}
	return best
}

// padApprovers appends n copies of approver src, each with an id no
// policy names and no root user has, and of its credential.
func (q *question) padApprovers(tree map[string]any, src, n int) {
	users, _ := tree["approvers"].([]any)
	creds, hasCreds := tree["credentials"].([]any)
	named := q.e.d.strs["approvers[*].id"]
	for range n {
		u := deepCopy(users[src])
		if m, ok := u.(map[string]any); ok {
			if _, read := m["id"]; read {
				id := "approver-" + strconv.Itoa(len(users))
				for slices.Contains(named, id) || slices.Contains(q.e.rootIDs, id) {
					id += "-copy"
				}
				m["id"] = id
			}
		}
		users = append(users, u)
		if hasCreds && src < len(creds) {
			creds = append(creds, deepCopy(creds[src]))
		}
	}
	tree["approvers"] = users
	if hasCreds {
		tree["credentials"] = creds
	}
}

// approverSize is what a copy of approver src weighs, its credential
// included.
func (q *question) approverSize(tree map[string]any, src int) int {
	n := 0
	for _, list := range []string{"approvers", "credentials"} {
		if l, ok := tree[list].([]any); ok && src < len(l) {
			n += size(l[src])
		}
	}
	return n
}

// copies are n deep copies of v.
func copies(v any, n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = deepCopy(v)
	}
	return out
}

// deepCopy copies the maps and lists of a witness's tree; the values in
// them (strings, bools, integers) are never changed, and are shared.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, c := range x {
			m[k] = deepCopy(c)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, c := range x {
			l[i] = deepCopy(c)
		}
		return l
	}
	return v
}

// size is what v weighs against maxWitnessElements: one, and one for
// each element and field inside it.
func size(v any) int {
	n := 1
	switch x := v.(type) {
	case map[string]any:
		for _, c := range x {
			n += size(c)
		}
	case []any:
		for _, c := range x {
			n += size(c)
		}
	}
	return n
}

// lookupPath is the value at path in the tree of maps and lists, nil
// where there is none.
func lookupPath(tree map[string]any, path string) any {
	root := rootOf(path)
	rest := path[len(root):]
	var cur any = tree
	key := root
	for {
		step, next := nextStep(rest)
		if step == "" {
			return get(cur, key)
		}
		if cur = get(cur, key); cur == nil {
			return nil
		}
		key, rest = step, next
	}
}
